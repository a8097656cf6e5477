package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wasmtimeHost: `spawnbench wasmtime`, the Wasmtime embedded in spawnbench
// (engine/wasmhost), one fresh process per repetition.
type wasmtimeHost struct{ cfg wasmtimeSettings }

// wasmtimeSettings are the embedded host's knobs (see host_wasmtime.cue).
type wasmtimeSettings struct {
	HostThreads   string `json:"host_threads"`
	InstantiateOn string `json:"instantiate_on"`
	Allocation    string `json:"allocation"`
	MaxThreads    int    `json:"max_threads"`
	// PoolInstances sizes the pooling allocator; 0 leaves the host's
	// default.
	PoolInstances int    `json:"pool_instances"`
	Prestart      int    `json:"prestart_threads"`
	IdleSpin      string `json:"idle_spin"`
}

// HostExecutable finds the spawnbench binary that runs the modules (its
// `wasmtime` subcommand). It is this executable by default; tests, which
// run as a test binary, point it at a freshly built spawnbench.
var HostExecutable = func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the spawnbench executable: %w", err)
	}
	return exe, nil
}

func init() {
	RegisterHost("wasmtime", "the Wasmtime embedded in spawnbench (spawnbench wasmtime)", FormModule,
		// WASI's monotonic clock counts nanoseconds.
		HostFacts{Family: hostfacts.Wasmtime, ClockStepNS: 1, Install: "go build -o bin/spawnbench ./cmd/spawnbench"},
		func(cfg wasmtimeSettings) Host { return &wasmtimeHost{cfg: cfg} })
}

func (h *wasmtimeHost) Toolchain(context.Context) Toolchain {
	return Toolchain{Present: true, Version: "host " + wasmtimeGoVersion()}
}

// wasmtimeGoVersion names the embedded Wasmtime, from the build's module
// list.
func wasmtimeGoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "github.com/bytecodealliance/wasmtime-go") {
				return dep.Path + " " + dep.Version
			}
		}
	}
	return "wasmtime-go (version unknown)"
}

func (h *wasmtimeHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	exe, err := HostExecutable()
	if err != nil {
		return Outcome{}, err
	}
	argv := []string{exe, "wasmtime",
		"--threads", h.cfg.HostThreads,
		"--instantiate", h.cfg.InstantiateOn,
		"--allocation", h.cfg.Allocation,
		"--max-threads", fmt.Sprint(h.cfg.MaxThreads),
		"--prestart-threads", fmt.Sprint(h.cfg.Prestart),
		"--spin", h.cfg.IdleSpin,
		// The host notes each thread's CPUs after the clock reads and
		// prints them after the benchmark's lines: WASI cannot tell them.
		"--placement"}
	if r.Traced {
		// Its own phases in the new thread, which refine the trace's.
		argv = append(argv, "--phases")
	}
	if h.cfg.PoolInstances > 0 {
		argv = append(argv, "--pool-instances", fmt.Sprint(h.cfg.PoolInstances))
	}
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
