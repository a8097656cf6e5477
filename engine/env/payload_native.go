package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/proc"
)

// native: the C benchmarks compiled for the machine with a C compiler and
// pthreads, one executable per benchmark.
type native struct{ cfg nativeSettings }

type nativeSettings struct {
	CC     string   `json:"cc"`
	CFlags []string `json:"cflags"`
}

func init() {
	RegisterPayload("native", "C with pthreads, compiled for the machine", []Form{FormExecutable}, PayloadFacts{},
		func(cfg nativeSettings) Payload { return &native{cfg: cfg} })
}

func (p *native) Toolchain(ctx context.Context) Toolchain {
	install := "apt-get install -y " + debianPackageFor(p.cfg.CC)
	if why := proc.Missing(p.cfg.CC); why != "" {
		return Toolchain{Install: install, Problem: "C compiler " + why}
	}
	out, err := proc.ToolFact(ctx, p.cfg.CC, "--version")
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: firstLine(out), Install: install}
}

func (p *native) BuildKey(ctx context.Context) string {
	return fmt.Sprintf("native|%s|%q|%s", p.cfg.CC, p.cfg.CFlags, p.Toolchain(ctx).Version)
}

func (p *native) Build(ctx context.Context, srcDir, outDir string) error {
	for _, b := range Benchmarks {
		argv := []string{p.cfg.CC}
		argv = append(argv, p.cfg.CFlags...)
		argv = append(argv, "-pthread", "-o", filepath.Join(outDir, string(b)),
			filepath.Join(srcDir, "c", string(b)+".c"))
		if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
			return fmt.Errorf("compile %s: %w", b, err)
		}
	}
	return nil
}

func (p *native) Entry(_ Form, b Benchmark, arg int) Entry {
	return Entry{File: string(b), Args: []string{fmt.Sprint(arg)}}
}
