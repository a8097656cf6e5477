package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"spawnbench/engine/proc"
)

// wasiThreads: the C benchmarks compiled for wasm32-wasi-threads over
// c/wasi/ (no libc), one .wasm per benchmark. The WebAssembly runtimes
// (the embedded Wasmtime, the Wasmtime CLIs) run a module as it is; Node.js
// and the browsers run it on the JavaScript wasi-threads host (jshost.go),
// which is staged beside the build.
type wasiThreads struct {
	cfg wasiThreadsSettings
}

type wasiThreadsSettings struct {
	CC        string   `json:"cc"`
	Linker    string   `json:"linker"`
	CFlags    []string `json:"cflags"`
	MaxMemory int64    `json:"max_memory"`
	StackSize int64    `json:"stack_size"`
	// The JavaScript host's options: the pair's settings, absent on the
	// WebAssembly runtimes.
	jsHostSettings
}

func init() {
	RegisterPayload("wasi-freestanding", "C over a freestanding wasi-threads runtime, one .wasm per benchmark",
		[]Form{FormModule, FormScript, FormPage}, PayloadFacts{},
		func(cfg wasiThreadsSettings) Payload { return &wasiThreads{cfg: cfg} })
}

func (p *wasiThreads) Toolchain(ctx context.Context) Toolchain {
	const install = "apt-get install -y clang-16 lld-16"
	var versions []string
	for _, tool := range []string{p.cfg.CC, p.cfg.Linker} {
		if why := proc.Missing(tool); why != "" {
			return Toolchain{Install: install, Problem: why}
		}
		out, err := proc.ToolFact(ctx, tool, "--version")
		if err != nil {
			return Toolchain{Install: install, Problem: err.Error()}
		}
		versions = append(versions, firstLine(out))
	}
	return Toolchain{Present: true, Version: strings.Join(versions, "; "), Install: install}
}

func (p *wasiThreads) BuildKey(ctx context.Context) string {
	return fmt.Sprintf("wasi-threads|%s|%s|%q|%d|%d|%s", p.cfg.CC, p.cfg.Linker, p.cfg.CFlags,
		p.cfg.MaxMemory, p.cfg.StackSize, p.Toolchain(ctx).Version)
}

// compile runs the compiler on one source into one object.
func (p *wasiThreads) compile(ctx context.Context, srcDir, src, obj string) error {
	argv := []string{p.cfg.CC, "--target=wasm32-wasi-threads", "-matomics", "-mbulk-memory",
		"-ffreestanding", "-nostdlib", fmt.Sprintf("-DSBRT_STACK_SIZE=%d", p.cfg.StackSize)}
	argv = append(argv, p.cfg.CFlags...)
	argv = append(argv, "-I", filepath.Join(srcDir, "c"), "-c", "-o", obj, src)
	if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
		return fmt.Errorf("compile %s: %w", filepath.Base(src), err)
	}
	return nil
}

// Build links every benchmark's .wasm, and copies the JavaScript host's
// own sources (jshost/*.mjs, *.html: spawnbench's, not npm's) beside them
// for the hosts that stage it.
func (p *wasiThreads) Build(ctx context.Context, srcDir, outDir string) error {
	objDir := filepath.Join(outDir, "obj")
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return fmt.Errorf("make object directory: %w", err)
	}
	runtimeObjs := []string{filepath.Join(objDir, "sbrt.o"), filepath.Join(objDir, "thread_start.o")}
	for i, src := range []string{"sbrt.c", "thread_start.s"} {
		if err := p.compile(ctx, srcDir, filepath.Join(srcDir, "c", "wasi", src), runtimeObjs[i]); err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
	}
	for _, b := range Benchmarks {
		obj := filepath.Join(objDir, string(b)+".o")
		if err := p.compile(ctx, srcDir, filepath.Join(srcDir, "c", string(b)+".c"), obj); err != nil {
			return err
		}
		argv := []string{p.cfg.Linker, "--import-memory", "--export-memory", "--shared-memory",
			fmt.Sprintf("--max-memory=%d", p.cfg.MaxMemory),
			"-z", fmt.Sprintf("stack-size=%d", p.cfg.StackSize),
			"-o", filepath.Join(outDir, string(b)+".wasm"), obj}
		argv = append(argv, runtimeObjs...)
		if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
			return fmt.Errorf("link %s: %w", b, err)
		}
	}
	return copyJSHostSources(srcDir, outDir)
}

func (p *wasiThreads) Entry(f Form, b Benchmark, arg int) Entry { return wasiModuleEntry(f, b, arg) }

// wasiModuleEntry starts a wasi-threads build's benchmark b: its .wasm
// on a WebAssembly runtime, or the JavaScript host's script or page (the
// wasi-freestanding and wasi-libc payloads lay out their builds alike).
func wasiModuleEntry(f Form, b Benchmark, arg int) Entry {
	module := string(b) + ".wasm"
	switch f {
	case FormScript:
		return Entry{File: "node.mjs", Args: []string{module, fmt.Sprint(arg)}}
	case FormPage:
		return Entry{File: "page.html", Args: []string{string(b), fmt.Sprint(arg)}}
	}
	return Entry{File: module, Args: []string{fmt.Sprint(arg)}}
}

// Adapter is the JavaScript wasi-threads host under Node.js and the
// browsers; the WebAssembly runtimes need none.
func (p *wasiThreads) Adapter(f Form) Adapter { return p.cfg.adapter(f) }
