package env

import (
	"context"
	"path/filepath"
	"runtime/debug"

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

func init() {
	RegisterHost("wazero", "wazero, the Go runtime, embedded in spawnbench (spawnbench wazero; its threads are goroutines)", FormModule,
		// The host gives every thread Go's monotonic clock (time.Since
		// one origin), which counts nanoseconds.
		HostFacts{Family: hostfacts.Wazero, ClockStepNS: 1, Install: "go build -o bin/spawnbench ./cmd/spawnbench"},
		func(cfg wazeroSettings) Host { return &wazeroHost{cfg: cfg} })
}

func (h *wazeroHost) Toolchain(context.Context) Toolchain {
	return Toolchain{Present: true, Version: "wazero " + wazeroVersion() + ", " + h.cfg.Engine}
}

// wazeroVersion names the embedded wazero, from the build's module list.
func wazeroVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/tetratelabs/wazero" {
				return dep.Version
			}
		}
	}
	return "(version unknown)"
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
