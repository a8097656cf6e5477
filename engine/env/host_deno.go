package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// denoHost: Deno (V8, with its own worker implementation), one fresh
// `deno run` process per repetition, running a payload's script from the
// run directory. Deno may read files (the script loads its workers' from
// disk) and nothing more, and each process gets an empty DENO_DIR of its
// own: no cache (Deno keeps V8's code cache there) is shared with the
// user's or between repetitions, so every repetition starts as cold as a
// fresh node does.
type denoHost struct{ cfg denoSettings }

type denoSettings struct {
	// Deno is the command: a name looked up as toolPath says, or a path.
	Deno      string   `json:"deno"`
	DenoFlags []string `json:"deno_flags"`
}

// DenoVersion is the release .ci/setup installs.
const DenoVersion = "2.9.8"

var denoInstall = fmt.Sprintf("bash .ci/setup (PyPI deno %s into .tools/, linked as bin/deno)", DenoVersion)

func init() {
	RegisterHost("deno", "Deno (a fresh deno run process per repetition)", FormScript,
		// Every thread reads performance.timeOrigin + performance.now().
		// A worker's reading and its parent's, compared over shared memory,
		// agreed within 1.0 us (busy machine, 40 workers), a little worse
		// than Node.js and Bun: 2 us covers it.
		HostFacts{Family: hostfacts.JSHosts, ClockStepNS: 2000, Install: denoInstall,
			// Emscripten 3.1.6's glue takes Deno for Node.js and fails:
			// `__filename is not defined`, and in a worker `Cannot set
			// property location`.
			Refuses: []string{"emscripten"}},
		func(cfg denoSettings) Host { return &denoHost{cfg: cfg} })
}

func (h *denoHost) Toolchain(ctx context.Context) Toolchain {
	_, version, err := toolVersion(ctx, h.cfg.Deno)
	if err != nil {
		return Toolchain{Install: denoInstall, Problem: "deno: " + err.Error()}
	}
	return Toolchain{Present: true, Version: version, Install: denoInstall}
}

func (h *denoHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Deno)
	if err != nil {
		return Outcome{}, fmt.Errorf("deno: %w", err)
	}
	dir, err := os.MkdirTemp("", "spawnbench-deno-*")
	if err != nil {
		return Outcome{}, fmt.Errorf("deno: a private DENO_DIR: %w", err)
	}
	defer os.RemoveAll(dir)
	argv := append([]string{path, "run", "--allow-read"}, h.cfg.DenoFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	// No update check (it would fetch over the network from a fresh
	// DENO_DIR every time) and no permission prompt (a run waits for no one).
	environ := []string{"DENO_DIR=" + dir, "DENO_NO_UPDATE_CHECK=1", "DENO_NO_PROMPT=1"}
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, Env: environ, CPUs: r.CPUs, Stdout: r.Stdout})
}
