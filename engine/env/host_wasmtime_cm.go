package env

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wasmtimeCM: a Wasmtime CLI running a component whose threads are the
// component model's own (the cm-threads payload), one fresh process per
// repetition: `wasmtime run -W component-model-threading COMPONENT BENCH N`.
// Those threads are Wasmtime's fibers on the one OS thread that runs the
// component, switched cooperatively: nothing here starts an OS thread.
//
// The clock is WASI's monotonic clock, one origin for every thread of the
// process (they share one Store and its WASI context).
type wasmtimeCM struct {
	// The same settings as the wasi-threads CLIs' (wasmtime-cli).
	cfg wasmtimeCLISettings

	probeOnce sync.Once
	version   string
	problem   error
	unfit     bool
}

//go:embed wasmtime-cm.versions
var wasmtimeCMVersionsFile string

// WasmtimeCMVersions are the Wasmtime CLI releases that run the
// component model's threads (wasmtime-cm.versions), the default first.
func WasmtimeCMVersions() []string { return versionLines(wasmtimeCMVersionsFile) }

// cmThreadingFlags turn the component model's threads on: the builtins
// thread.new-indirect, thread.suspend-then-resume and friends.
var cmThreadingFlags = []string{"-W", "component-model-threading"}

//go:embed cm_probe.wasm
var cmProbe []byte

func init() {
	RegisterHost("wasmtime-cm", "a Wasmtime CLI running a component on the component model's own threads (wasmtime run -W component-model-threading)", FormComponent,
		HostFacts{Family: hostfacts.Wasmtime, ClockStepNS: 1, Install: wasmtimeInstall(WasmtimeCMVersions())},
		func(cfg wasmtimeCLISettings) Host { return &wasmtimeCM{cfg: cfg} })
}

func (h *wasmtimeCM) Toolchain(ctx context.Context) Toolchain {
	install := wasmtimeInstallOf(h.cfg.Wasmtime, WasmtimeCMVersions())
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	h.probeCLI(ctx, path)
	if h.problem != nil {
		return Toolchain{Install: install, Problem: h.problem.Error(), Unfit: h.unfit}
	}
	return Toolchain{Present: true, Version: h.version, Install: install}
}

// probeCLI asks the CLI, once, for its version and runs one spawn
// (cm_probe.wat) with the benchmarks' flags: a release that lacks the
// component model's threads, or encodes their builtins otherwise (46
// lists the flag, yet refuses wasm-tools 1.262's component), says so
// here, before anything is measured.
func (h *wasmtimeCM) probeCLI(ctx context.Context, path string) {
	h.probeOnce.Do(func() {
		out, err := proc.ToolFact(ctx, path, "--version")
		if err != nil {
			h.problem = err
			return
		}
		h.version = firstLine(out)
		component, remove, err := probeFile("wasmtime-cm", cmProbe)
		if err != nil {
			h.problem = err
			return
		}
		defer remove()
		argv := append(h.argv(path), component)
		if _, err := proc.Output(ctx, "", argv...); err != nil {
			if ctx.Err() != nil {
				h.problem = fmt.Errorf("wasmtime-cm probe: %w", ctx.Err())
				return
			}
			// Wasmtime's error, without the backtrace RUST_BACKTRACE adds.
			said, _, _ := strings.Cut(err.Error(), "Stack backtrace:")
			var lines []string
			for _, line := range strings.Split(said, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					lines = append(lines, line)
				}
			}
			said = strings.Join(lines, " | ")
			h.problem = fmt.Errorf("%s cannot run the component model's threads (wasmtime run %s): use %s; the probe gave: %s",
				versionWords(h.version), strings.Join(argv[2:len(argv)-1], " "), WasmtimeCLICommand(WasmtimeCMVersions()[0]), said)
			h.unfit = true
		}
	})
}

// argv is the command up to the component: spawnbench's flags, then the
// environment's.
func (h *wasmtimeCM) argv(path string) []string {
	argv := append([]string{path, "run"}, cmThreadingFlags...)
	return append(argv, h.cfg.WasmtimeFlags...)
}

func (h *wasmtimeCM) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Outcome{}, err
	}
	if h.probeCLI(ctx, path); h.problem != nil {
		return Outcome{}, h.problem
	}
	argv := append(h.argv(path), filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
