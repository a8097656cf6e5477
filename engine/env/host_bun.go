package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// bunHost: Bun (JavaScriptCore), one fresh `bun` process per repetition,
// running a payload's script from the run directory, as node does.
type bunHost struct{ cfg bunSettings }

type bunSettings struct {
	// Bun is the command: a name looked up as toolPath says, or a path.
	Bun      string   `json:"bun"`
	BunFlags []string `json:"bun_flags"`
}

// BunVersion is the release .ci/setup installs.
const BunVersion = "1.4.4"

var bunInstall = fmt.Sprintf("bash .ci/setup (npm @oven/bun-linux-x64 %s into .tools/, linked as bin/bun)", BunVersion)

func init() {
	RegisterHost("bun", "Bun (a fresh bun process per repetition)", FormScript,
		// Every thread reads performance.timeOrigin + performance.now()
		// (process.hrtime and Bun.nanoseconds count from each worker's own
		// start). Its step as a double near 1.7e18 ns is 2^8 ns; a worker's
		// reading and its parent's, compared over shared memory, agreed
		// within 0.4 us (busy machine, 40 workers): 1 us covers both.
		HostFacts{Family: hostfacts.JSHosts, ClockStepNS: 1000, Install: bunInstall,
			// Emscripten 3.1.6's glue reads process.hrtime (see above):
			// its spawn times come out wrapped and negative.
			Refuses: []string{"emscripten"}},
		func(cfg bunSettings) Host { return &bunHost{cfg: cfg} })
}

func (h *bunHost) Toolchain(ctx context.Context) Toolchain {
	_, version, err := toolVersion(ctx, h.cfg.Bun)
	if err != nil {
		return Toolchain{Install: bunInstall, Problem: "bun: " + err.Error()}
	}
	return Toolchain{Present: true, Version: "Bun " + version, Install: bunInstall}
}

func (h *bunHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Bun)
	if err != nil {
		return Outcome{}, fmt.Errorf("bun: %w", err)
	}
	argv := append([]string{path}, h.cfg.BunFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, CPUs: r.CPUs, Stdout: r.Stdout})
}
