package env

import (
	"context"
	"fmt"
	"path/filepath"

	"spawnbench/engine/proc"
)

// emscripten: the C benchmarks built with Emscripten's emcc and run in
// Node.js, one fresh `node` process per repetition. emscripten-chromium
// (emscripten_chromium.go) runs the same build in a browser.
type emscripten struct {
	name string
	cfg  emscriptenSettings
}

type emscriptenSettings struct {
	emccSettings
	Node      string   `json:"node"`
	NodeFlags []string `json:"node_flags"`
}

func init() {
	Register("emscripten", "C with pthreads built by Emscripten's emcc, run in Node.js",
		func(name string, cfg emscriptenSettings) Environment { return &emscripten{name: name, cfg: cfg} })
}

func (e *emscripten) Name() string { return e.name }
func (e *emscripten) Kind() string { return "emscripten" }

func (e *emscripten) Toolchain(ctx context.Context) Toolchain {
	tc := e.cfg.toolchain(ctx)
	if !tc.Present {
		return tc
	}
	node, err := nodeVersion(ctx, e.cfg.Node, nodeFetchOff)
	if err != nil {
		return Toolchain{Install: tc.Install, Problem: err.Error()}
	}
	tc.Version += "; " + node
	return tc
}

func (e *emscripten) BuildKey(ctx context.Context) string {
	// Node.js runs the build but does not shape it; emcc's version does.
	return "emscripten|" + e.cfg.key(ctx)
}

func (e *emscripten) Build(ctx context.Context, srcDir, outDir string) error {
	return e.cfg.build(ctx, srcDir, outDir)
}

func (e *emscripten) Run(ctx context.Context, r Repetition) (Outcome, error) {
	argv := append([]string{e.cfg.Node}, nodeFetchOff)
	argv = append(argv, e.cfg.NodeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, string(r.Benchmark)+".js"), fmt.Sprint(r.Arg))
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, CPUs: r.CPUs, Stdout: r.Stdout})
}

// nodeFetchOff stops Node.js from offering the global fetch, which makes
// Emscripten 3.1.6's glue fetch the .wasm by file path, and fail, instead
// of reading it from disk.
const nodeFetchOff = "--no-experimental-fetch"

// emccInstall is the install hint of both Emscripten kinds: Debian's
// package brings emcc, clang, binaryen and a Node.js.
const emccInstall = "apt-get install -y emscripten nodejs"
