package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// nodeHost: Node.js, one fresh `node` process per repetition, running a
// payload's script from the run directory.
type nodeHost struct{ cfg nodeSettings }

type nodeSettings struct {
	Node string `json:"node"`
	// Root is the toolchain root node comes from (root.go).
	Root string `json:"root"`
	// RequiredFlags are the pair's (what the payload needs under Node.js),
	// NodeFlags the user's; both go before the script.
	RequiredFlags []string `json:"node_required_flags"`
	NodeFlags     []string `json:"node_flags"`
}

const nodeInstall = "apt-get install -y nodejs"

func init() {
	RegisterHost("node", "Node.js (a fresh node process per repetition)", FormScript,
		HostFacts{Family: hostfacts.JSHosts, ClockStepNS: hostfacts.JSDoubleStepNS, Install: nodeInstall},
		func(cfg nodeSettings) Host { return &nodeHost{cfg: cfg} })
}

func (h *nodeHost) flags() []string {
	return append(append([]string{}, h.cfg.RequiredFlags...), h.cfg.NodeFlags...)
}

func (h *nodeHost) Toolchain(ctx context.Context) Toolchain {
	root, tc := openRoot(h.cfg.Root)
	if !tc.Present {
		return tc
	}
	install := nodeInstall
	if !root.system() {
		install = rootInstall
	}
	v, err := nodeVersion(ctx, root, h.cfg.Node, h.flags()...)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: root.version(v), Install: install}
}

func (h *nodeHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	argv := append([]string{h.cfg.Node}, h.flags()...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	// The root was checked with the toolchain; a run never falls back to
	// the system's node.
	root, tc := openRoot(h.cfg.Root)
	if !tc.Present {
		return Outcome{}, fmt.Errorf("node's root: %s", tc.Problem)
	}
	argv = root.command(argv, r.BuildDir)
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, CPUs: r.CPUs, Stdout: r.Stdout})
}
