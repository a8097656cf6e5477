package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/proc"
)

// native: the C benchmarks compiled for the host with a C compiler and
// pthreads, run directly.
type native struct {
	name string
	cfg  nativeSettings
}

type nativeSettings struct {
	CC     string   `json:"cc"`
	CFlags []string `json:"cflags"`
}

func init() {
	Register("native", "C with pthreads, compiled for the host",
		func(name string, cfg nativeSettings) Environment { return &native{name: name, cfg: cfg} })
}

func (e *native) Name() string { return e.name }
func (e *native) Kind() string { return "native" }

func (e *native) Toolchain(ctx context.Context) Toolchain {
	install := "apt-get install -y " + debianPackageFor(e.cfg.CC)
	if why := proc.Missing(e.cfg.CC); why != "" {
		return Toolchain{Install: install, Problem: "C compiler " + why}
	}
	out, err := proc.Output(ctx, "", e.cfg.CC, "--version")
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: firstLine(out), Install: install}
}

func (e *native) BuildKey(ctx context.Context) string {
	return fmt.Sprintf("native|%s|%q|%s", e.cfg.CC, e.cfg.CFlags, e.Toolchain(ctx).Version)
}

func (e *native) Build(ctx context.Context, srcDir, outDir string) error {
	for _, b := range Benchmarks {
		argv := []string{e.cfg.CC}
		argv = append(argv, e.cfg.CFlags...)
		argv = append(argv, "-pthread", "-o", filepath.Join(outDir, string(b)),
			filepath.Join(srcDir, "c", string(b)+".c"))
		if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
			return fmt.Errorf("compile %s: %w", b, err)
		}
	}
	return nil
}

func (e *native) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return proc.Run(ctx, proc.Command{
		Argv:   []string{filepath.Join(r.BuildDir, string(r.Benchmark)), fmt.Sprint(r.Arg)},
		CPUs:   r.CPUs,
		Stdout: r.Stdout,
	})
}
