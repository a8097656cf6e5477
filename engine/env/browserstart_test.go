package env_test

import (
	"testing"

	"spawnbench/engine/env"
)

// TestBrowserRepetitionsHaveRenderersOfTheirOwn: five repetitions of a
// cell in each browser, warm (the default: one browser for all five) and
// cold, each ran in a renderer process of its own, and printed its spawn.
func TestBrowserRepetitionsHaveRenderersOfTheirOwn(t *testing.T) {
	for _, c := range []struct{ name, kind, fields string }{
		{"manual", "manual", ""},
		{"manual-cold", "manual", `, browser_start: "cold"`},
		{"manual-firefox", "manual-firefox", ""},
		{"manual-firefox-cold", "manual-firefox", `, browser_start: "cold"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := envFromSpec(t, c.name, c.kind, c.fields)
			dir := webBuild(t, "manual", e)
			seen := map[int]int{}
			for i := range 5 {
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
