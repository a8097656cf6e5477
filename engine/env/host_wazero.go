package env

import (
	"context"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wazeroHost: `spawnbench wazero`, wazero embedded in spawnbench
// (engine/wazerohost), one fresh process per repetition. Its threads are
// goroutines (hostfacts.Wazero's thread kind), so reports say so beside
// its rows.
type wazeroHost struct{ cfg wazeroSettings }

// wazeroSettings are the host's knobs (see host_wazero.cue).
type wazeroSettings struct {
	Engine string `json:"engine"`
}

// wazeroInstall: wazero is a Go module of spawnbench's own build.
const wazeroInstall = "go build -o bin/spawnbench ./cmd/spawnbench (wazero is in go.mod)"

func init() {
	RegisterHost("wazero", "wazero, the Go runtime, embedded in spawnbench (spawnbench wazero; its threads are goroutines)", FormModule,
		// The host gives every thread Go's monotonic clock (time.Since
		// one origin), which counts nanoseconds.
		HostFacts{Family: hostfacts.Wazero, ClockStepNS: 1, Install: wazeroInstall},
		func(cfg wazeroSettings) Host { return &wazeroHost{cfg: cfg} })
}

// Toolchain asks the executable that will run the modules for its
// wazero's version, and whether the engine runs here.
func (h *wazeroHost) Toolchain(ctx context.Context) Toolchain {
	exe, err := HostExecutable()
	if err != nil {
		return Toolchain{Install: wazeroInstall, Problem: err.Error()}
	}
	out, err := proc.ToolFact(ctx, exe, "wazero", "--engine", h.cfg.Engine, "--version")
	if err != nil {
		return Toolchain{Install: wazeroInstall, Problem: "spawnbench wazero --version: " + err.Error()}
	}
	return Toolchain{Present: true, Version: firstLine(out) + ", " + h.cfg.Engine, Install: wazeroInstall}
}

func (h *wazeroHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	exe, err := HostExecutable()
	if err != nil {
		return Outcome{}, err
	}
	argv := []string{exe, "wazero", "--engine", h.cfg.Engine,
		// As the embedded Wasmtime host: WASI cannot tell the benchmark
		// its CPUs, so the host notes them and prints them after its lines.
		"--placement",
		filepath.Join(r.BuildDir, e.File)}
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
