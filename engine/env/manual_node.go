package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/proc"
)

// manualNode: manual/spawn.mjs in Node.js with worker_threads (through
// manual/node.mjs), one fresh `node` process per repetition.
type manualNode struct {
	name string
	cfg  manualNodeSettings
}

type manualNodeSettings struct {
	Node      string   `json:"node"`
	NodeFlags []string `json:"node_flags"`
}

func init() {
	Register("manual-node", "raw worker_threads Workers, no C, in Node.js",
		func(name string, cfg manualNodeSettings) Environment { return &manualNode{name: name, cfg: cfg} })
}

func (e *manualNode) Name() string { return e.name }
func (e *manualNode) Kind() string { return "manual-node" }

func (e *manualNode) Toolchain(ctx context.Context) Toolchain {
	const install = "apt-get install -y nodejs"
	version, err := nodeVersion(ctx, e.cfg.Node)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: version, Install: install}
}

// BuildKey is constant: the build is a copy of manual/, which the runner
// hashes with the other sources.
func (e *manualNode) BuildKey(ctx context.Context) string { return "manual-node" }

func (e *manualNode) Build(ctx context.Context, srcDir, outDir string) error {
	return copyManual(srcDir, outDir)
}

func (e *manualNode) Run(ctx context.Context, r Repetition) (Outcome, error) {
	argv := append([]string{e.cfg.Node}, e.cfg.NodeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, "node.mjs"), string(r.Benchmark), fmt.Sprint(r.Arg))
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, CPUs: r.CPUs, Stdout: r.Stdout})
}
