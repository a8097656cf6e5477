package env_test

import (
	"testing"

	"spawnbench/engine/env"
)

// TestBrowserRepetitionsHaveRenderersOfTheirOwn: repetitions of a cell in
// Firefox, three warm (the default: one browser for all three) and two
// cold (a browser each), each ran in a renderer process of its own, and
// printed its spawn. Chromium's (kind manual, warm and cold) are
// cmd/spawnbench's TestBrowserRunHasRenderersOfItsOwnAndLeavesNoTemporaryFiles,
// through a whole run to runs.parquet.
func TestBrowserRepetitionsHaveRenderersOfTheirOwn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, kind, fields string
		repetitions        int
	}{
		{"manual-firefox", "manual-firefox", "", 3},
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
