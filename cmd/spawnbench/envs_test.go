package main

import (
	"os"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/env"
)

// TestEnvsShowsEveryRuntimeReady runs `envs` in the source tree, where
// .ci/setup put the Wasmtime CLIs (bin/) and the JavaScript host's
// packages (jshost/node_modules), and wants every kind ready, both
// Wasmtime release with its own version. A row is its line and the
// indented lines under it.
func TestEnvsShowsEveryRuntimeReady(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	stdout, stderr, code := runCLI(t, "envs")
	if code != 0 {
		t.Fatalf("envs: exit %d\n%s%s", code, stdout, stderr)
	}
	rows := map[string]string{}
	label := ""
	for _, line := range strings.Split(stdout, "\n")[1:] {
		if strings.HasPrefix(line, " ") && label != "" {
			rows[label] += " " + strings.TrimSpace(line)
			continue
		}
		if f := strings.Fields(line); len(f) > 1 {
			label = f[0]
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
	// The wasi-libc kinds, with the sysroot's tag and commit, where
	// .ci/setup built it (it needs ../shared/vendor's archive).
	if _, err := os.Stat(filepath.Join(repoRoot(t), ".tools", "wasi-libc-wasi-sdk-25", "sysroot", "SOURCE")); err == nil {
		for _, kind := range []string{"wasi-libc", "wasi-libc-wasmtime-cli (wasmtime-46)", "wasi-libc-node", "wasi-libc-chromium", "wasi-libc-firefox", "wasi-libc-bun", "wasi-libc-deno"} {
			wants[kind] = "wasi-libc wasi-sdk-25 (574b88d)"
		}
	} else {
		t.Log("the wasi-libc sysroot is not built (bash .ci/setup with ../shared/vendor/wasi-libc-wasi-sdk-25.tar.gz): its kinds are not checked")
	}
	// WAMR, where .ci/setup built it (from ../shared/vendor's archive).
	if _, err := os.Stat(filepath.Join(repoRoot(t), ".tools", "wamr-2.4.4", "iwasm")); err == nil {
		wants["wamr"] = "iwasm 2.4.4"
		wants["wasi-libc-wamr"] = "iwasm 2.4.4"
	} else {
		t.Log("iwasm is not built (bash .ci/setup with ../shared/vendor/wamr-2.4.4.tar.gz): the wamr kinds are not checked")
	}
	// Wasmer, where .ci/setup --with-wasmer built it (.ci/test does).
	if _, err := os.Stat(filepath.Join(repoRoot(t), "bin", "wasmer")); err == nil {
		wants["wasmer"] = "wasmer " + env.WasmerVersion
		wants["wasi-libc-wasmer"] = "wasmer " + env.WasmerVersion
	} else {
		t.Log("wasmer is not built (bash .ci/setup --with-wasmer): the wasmer kinds are not checked")
	}
	// Bun and Deno, pinned by .ci/setup.
	wants["manual-bun"], wants["wasi-threads-bun"] = "Bun 1.4.4", "Bun 1.4.4"
	wants["manual-deno"], wants["wasi-threads-deno"] = "deno 2.9.8", "deno 2.9.8"
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
