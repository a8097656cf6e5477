package main

import (
	"strings"
	"testing"

	"spawnbench/engine/env"
)

// TestEnvsShowsEveryRuntimeReady runs `envs` in the source tree, where
// .ci/setup put the Wasmtime CLIs (bin/) and the JavaScript host's
// packages (jshost/node_modules), and wants every kind ready, both
// Wasmtime release with its own version.
func TestEnvsShowsEveryRuntimeReady(t *testing.T) {
	stdout, stderr, code := runCLI(t, repoRoot(t), "envs")
	if code != 0 {
		t.Fatalf("envs: exit %d\n%s%s", code, stdout, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 {
			label := f[0]
			if strings.HasPrefix(f[1], "(") {
				label += " " + f[1]
			}
			rows[label] = line
		}
	}
	wants := map[string]string{
		"wasi-threads-node":     "@emnapi/wasi-threads",
		"wasi-threads-chromium": "@emnapi/wasi-threads",
		"wasi-threads-firefox":  "Firefox",
		"emscripten-firefox":    "Firefox",
		"manual-firefox":        "Firefox",
	}
	// Every Wasmtime CLI release of the one list, each with its version.
	for _, v := range env.WasmtimeCLIVersions() {
		wants["wasmtime-cli ("+env.WasmtimeCLICommand(v)+")"] = "wasmtime " + v + " "
	}
	for label, want := range wants {
		row, ok := rows[label]
		if !ok {
			t.Errorf("envs has no row %q:\n%s", label, stdout)
			continue
		}
		if !strings.Contains(row, " ready ") || !strings.Contains(row, want) {
			t.Errorf("envs row %q is not ready with %q:\n%s", label, want, row)
		}
	}
}
