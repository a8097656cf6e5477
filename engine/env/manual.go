package env

import (
	"context"
)

// manual: raw Web Workers in headless Chromium, no C and no Emscripten
// (manual/index.html over manual/spawn.mjs), a fresh browser per
// repetition like emscripten-chromium. manual-node (manual_node.go) runs
// the same measurement with Node.js's worker_threads.
type manual struct {
	name string
	cfg  chromiumSettings
}

func init() {
	Register("manual", "raw Web Workers, no C, in headless Chromium",
		func(name string, cfg chromiumSettings) Environment { return &manual{name: name, cfg: cfg} })
}

func (e *manual) Name() string { return e.name }
func (e *manual) Kind() string { return "manual" }

func (e *manual) Toolchain(ctx context.Context) Toolchain {
	version, problem := e.cfg.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: chromiumInstall, Problem: problem}
	}
	return Toolchain{Present: true, Version: version, Install: chromiumInstall}
}

// BuildKey is constant: the build is a copy of manual/, which the runner
// hashes with the other sources.
func (e *manual) BuildKey(ctx context.Context) string { return "manual" }

func (e *manual) Build(ctx context.Context, srcDir, outDir string) error {
	return copyManual(srcDir, outDir)
}

func (e *manual) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.run(ctx, r, "index.html")
}
