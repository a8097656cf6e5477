package env_test

import (
	"testing"

	"spawnbench/engine/env"
)

// TestBrowserRepetitionsHaveRenderersOfTheirOwn: repetitions of a cell in
// Firefox started cold (a browser each) each ran in a renderer process of
// its own, and printed its spawn. The warm Firefox's pages are
// TestFirefoxKindsSpawnCoherently's (three pages of each Firefox kind, each
// in a renderer of its own); Chromium's, warm and cold (kind manual), are
// cmd/spawnbench's TestBrowserRunHasRenderersOfItsOwnAndLeavesNoTemporaryFiles,
// through a whole run to runs.parquet.
func TestBrowserRepetitionsHaveRenderersOfTheirOwn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, kind, fields string
		repetitions        int
	}{
		{"manual-firefox-cold", "manual-firefox", `, browser_start: "cold"`, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := envFromSpec(t, c.name, c.kind, c.fields)
			dir := webBuild(t, "manual", e)
			seen := map[int]int{}
			for i := range c.repetitions {
				out := webRun(t, e, dir, env.Sequential, 1)
				checkSpawns(t, out, 1)
				if out.RendererPID <= 0 {
					t.Fatalf("repetition %d: no renderer process recorded", i)
				}
				if j, ok := seen[out.RendererPID]; ok {
					t.Errorf("repetitions %d and %d both ran in renderer process %d", j, i, out.RendererPID)
				}
				seen[out.RendererPID] = i
				t.Logf("repetition %d: wall %v, renderer %d", i, out.Wall, out.RendererPID)
			}
		})
	}
}
