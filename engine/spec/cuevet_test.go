package spec

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"spawnbench/internal/fulltest"
)

// goodSpecs must be accepted, by Parse and by `cue vet -c` alike.
var goodSpecs = map[string]string{
	"minimal":         nativeEnv + "n: [1]\n",
	"every top field": nativeEnv + "name: \"x.y-z\"\nn: [1, 10]\nmodes: [\"parallel\", \"sequential\"]\nsamples: {min: 5, pause: \"1m30s\", warmup: 1}\nviews: {last: 3, minN: 4}\npinning: cpus: [0]\nlimits: timeout: \"2.5s\"\nschedule: {order: \"blocked\", seed: 7}\ncalibration: {sleep_us: [1], repeats: 1}\n",
	"pooled host":     "environments: [{name: \"w\", kind: \"wasi-threads\", host_threads: \"reuse\", prestart_threads: 4, idle_spin: \"50µs\", max_memory: 65536}]\nn: [1]\n",
	"every kind":      "environments: [{name: \"a\", kind: \"native\"}, {name: \"b\", kind: \"wasi-threads\"}, {name: \"c\", kind: \"emscripten\", initial_memory: 131072}, {name: \"d\", kind: \"emscripten-chromium\"}, {name: \"e\", kind: \"manual\"}, {name: \"f\", kind: \"manual-node\"}, {name: \"g\", kind: \"command\", run: [\"{out}/{bench}\", \"{arg}\"], env: [\"A=1\"]}, {name: \"h\", kind: \"wasmtime-cli\", wasmtime: \"wasmtime-36\"}, {name: \"i\", kind: \"wasi-threads-node\", reuse_worker: true, pool_size: 4096}, {name: \"j\", kind: \"wasi-threads-chromium\"}, {name: \"k\", kind: \"wasi-threads-firefox\"}, {name: \"l\", kind: \"emscripten-firefox\", pthread_pool_size: 16}, {name: \"m\", kind: \"manual-firefox\", firefox_flags: [\"-x\"]}, {name: \"n\", kind: \"manual-bun\", workers: \"worker_threads\"}, {name: \"o\", kind: \"manual-deno\", deno_flags: [\"-q\"]}, {name: \"p\", kind: \"wasi-threads-bun\"}, {name: \"q\", kind: \"wasi-threads-deno\", reuse_worker: true}]\nn: [1000000]\n",
	"hidden helper":   "_base: {kind: \"native\"}\nenvironments: [_base & {name: \"a\"}]\nn: [1]\n",
}

var cueBuild = sync.OnceValues(func() (string, error) {
	// The version go.mod requires (a test binary's build info lists no
	// dependencies), and the toolchain that builds it.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "cuelang.org/go").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m cuelang.org/go: %w", err)
	}
	version := strings.TrimSpace(string(out))
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	// Kept with the tests' other builds, once per version and toolchain:
	// not rebuilt (and linked) by every run, nor left behind by one.
	return fulltest.Cached("cue@"+version+" "+strings.TrimSpace(string(goVersion)), "cue", func(dir string) error {
		cmd := exec.Command("go", "install", "cuelang.org/go/cmd/cue@"+version)
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go install cuelang.org/go/cmd/cue@%s: %w\n%s", version, err, out)
		}
		return nil
	})
})

// cueCLI is the CUE command at the version this module uses.
func cueCLI(t *testing.T) string {
	t.Helper()
	cue, err := cueBuild()
	if err != nil {
		t.Fatalf("build the cue command: %v", err)
	}
	return cue
}

// cueVet appends src to the schema text and runs `cue vet -c` on it.
func cueVet(t *testing.T, src []byte) (bool, string) {
	t.Helper()
	schema, err := SchemaText()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "checked.cue")
	if err := os.WriteFile(p, append([]byte(schema+"\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cueCLI(t), "vet", "-c", p).CombinedOutput()
	return err == nil, string(out)
}

// TestCueVetAgreesWithParse: the printed schema and a spec, concatenated,
// pass `cue vet -c` exactly when Parse accepts the spec.
func TestCueVetAgreesWithParse(t *testing.T) {
	fulltest.Only(t, "builds the cue command")
	for _, c := range badSpecs {
		t.Run("bad/"+c.name, func(t *testing.T) {
			if ok, out := cueVet(t, []byte(c.src)); ok {
				t.Errorf("cue vet -c accepts a spec Parse refuses:\n%s\n%s", c.src, out)
			}
		})
	}
	for name, src := range goodSpecs {
		t.Run("good/"+name, func(t *testing.T) {
			if _, err := Parse("good.cue", []byte(src)); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if ok, out := cueVet(t, []byte(src)); !ok {
				t.Errorf("cue vet -c refuses a spec Parse accepts:\n%s", out)
			}
		})
	}
	// The shipped specs import their shared package; cue export makes
	// each one self-contained first.
	specsDir := filepath.Join("..", "..", "specs")
	for _, name := range []string{"sequential.cue", "parallel.cue", "calibrate.cue"} {
		t.Run("shipped/"+name, func(t *testing.T) {
			if _, err := Load(filepath.Join(specsDir, name)); err != nil {
				t.Fatalf("Load: %v", err)
			}
			cmd := exec.Command(cueCLI(t), "export", "--out", "cue", name)
			cmd.Dir = specsDir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			flat, err := cmd.Output()
			if err != nil {
				t.Fatalf("cue export: %v\n%s", err, stderr.String())
			}
			if _, err := Parse("flat-"+name, flat); err != nil {
				t.Errorf("Parse of the exported spec: %v", err)
			}
			if ok, out := cueVet(t, flat); !ok {
				t.Errorf("cue vet -c refuses the shipped spec:\n%s", out)
			}
		})
	}
}
