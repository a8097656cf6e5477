package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"spawnbench/engine/hostfacts"
)

// manual: raw workers, no C and no Emscripten: manual/spawn.mjs, run by
// manual/node.mjs with worker_threads (Node.js, and Bun and Deno when
// asked), by manual/web.mjs with the runtime's own Web Workers (Bun,
// Deno), or by manual/index.html with Web Workers in a browser. The build
// is a copy of manual/.
type manual struct{ cfg manualSettings }

type manualSettings struct {
	// Workers is the worker API a script host uses: "web" or
	// "worker_threads" (the pair's setting; empty, worker_threads, where
	// the host has only one).
	Workers string `json:"workers"`
}

func init() {
	RegisterPayload("manual", "raw workers, no C (manual/)", []Form{FormScript, FormPage},
		PayloadFacts{Family: hostfacts.RawWorkers},
		func(cfg manualSettings) Payload { return manual{cfg: cfg} })
}

// Toolchain: the payload is spawnbench's own JavaScript.
func (manual) Toolchain(context.Context) Toolchain { return Toolchain{Present: true} }

// BuildKey is constant: the build is a copy of manual/, which the build
// cache hashes with the other sources.
func (manual) BuildKey(context.Context) string { return "manual" }

// Build copies manual/ into the build directory, which is all the page
// server may serve.
func (manual) Build(_ context.Context, srcDir, outDir string) error {
	if err := os.CopyFS(outDir, os.DirFS(filepath.Join(srcDir, "manual"))); err != nil {
		return fmt.Errorf("copy manual/ to the build directory: %w", err)
	}
	return nil
}

func (m manual) Entry(f Form, b Benchmark, arg int) Entry {
	args := []string{string(b), fmt.Sprint(arg)}
	if f == FormPage {
		e := Entry{File: "index.html", Args: args}
		if b == Parallel {
			e.LiveWorkers = arg // every worker lives until all have posted
		}
		return e
	}
	if m.cfg.Workers == "web" {
		return Entry{File: "web.mjs", Args: args}
	}
	return Entry{File: "node.mjs", Args: args}
}
