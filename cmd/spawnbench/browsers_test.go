package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"testing"

	"spawnbench/engine/results"
)

// TestBrowserRunHasRenderersOfItsOwnAndLeavesNoTemporaryFiles: a run of
// a warm and a cold Chromium environment records, in runs.parquet, a
// renderer process for every repetition, none shared, and leaves nothing
// in $TMPDIR (Chromium's org.chromium.Chromium.* directories included).
// Three processes of each: the warm browser's third page still has a
// renderer of its own, and each cold one a browser of its own.
func TestBrowserRunHasRenderersOfItsOwnAndLeavesNoTemporaryFiles(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [
	{name: "warm", kind: "manual"},
	{name: "cold", kind: "manual", browser_start: "cold", against: "warm"},
]
n: [1]
samples: {min: 3, processes: 3}
`)
	// A short $TMPDIR of the test's own: Chromium's socket path must fit.
	tmp, err := os.MkdirTemp("", "sbtmp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(binary(t), "run", p, "-o", "out")
	cmd.Dir = dir
	cmd.Env = append(sharedCache(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.Bytes())
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the run left %s in $TMPDIR", e.Name())
	}
	set, err := results.Read(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 6 {
		t.Fatalf("%d runs, want 6 (3 processes in each of two environments)", len(set.Runs))
	}
	seen := map[int64]string{}
	for _, r := range set.Runs {
		key := results.CellKey(r.Environment, r.Mode, int64(r.N))
		if r.Status != results.StatusOK || r.RendererPID == nil || *r.RendererPID <= 0 {
			t.Errorf("%s process %d: status %s, renderer %v", key, r.Process, r.Status, r.RendererPID)
			continue
		}
		if other, ok := seen[*r.RendererPID]; ok {
			t.Errorf("%s process %d and %s shared renderer process %d", key, r.Process, other, *r.RendererPID)
		}
		seen[*r.RendererPID] = key
	}
}
