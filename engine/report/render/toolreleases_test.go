package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestToolReleasesPairOneEnvironmentInTwoReleases: environments whose
// resolved settings differ only in their root (and what follows from it)
// are one environment in two releases, the older and newer told by the
// versions their runs recorded; the newer's figures are divided by the
// older's, cell by cell. An environment whose settings differ otherwise
// (a worker pool) pairs with none, and the Wasmtime table stays empty.
func TestToolReleasesPairOneEnvironmentInTwoReleases(t *testing.T) {
	t.Parallel()
	const emcc = "emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) "
	chromium := "; Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)"
	tcs, _ := json.Marshal(map[string]string{
		"native":                   "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
		"emscripten-chromium":      emcc + "3.1.6 ()" + chromium,
		"emscripten-6-chromium":    emcc + "6.0.5 () [sid root sid-0: emscripten 6.0.5-2]" + chromium,
		"emscripten-pool-chromium": emcc + "3.1.6 ()" + chromium,
		"manual-node":              "Node.js v20.20.2",
		"manual-node-24":           "Node.js v24.22.2 [sid root sid-0: nodejs 24.22.2-1]",
	})
	envs := []string{"emscripten-chromium", "emscripten-6-chromium", "emscripten-pool-chromium", "manual-node", "manual-node-24"}
	s := reporttest.ReleaseSet(envs, string(tcs))
	kinds := map[string]string{"native": "native", "manual-node": "manual-node", "manual-node-24": "manual-node"}
	for _, e := range envs[:3] {
		kinds[e] = "emscripten-chromium"
	}
	for i := range s.Samples {
		s.Samples[i].Kind = kinds[s.Samples[i].Environment]
	}
	for i := range s.Runs {
		s.Runs[i].Kind = kinds[s.Runs[i].Environment]
	}
	emscripten := func(name, root string, pool int) map[string]any {
		return map[string]any{"name": name, "kind": "emscripten-chromium", "payload": "emscripten", "host": "chromium",
			"root": root, "emcc": "emcc", "pthread_pool_size": pool, "optimization": "3"}
	}
	node := func(name, root string, flags []string) map[string]any {
		return map[string]any{"name": name, "kind": "manual-node", "payload": "manual", "host": "node", "root": root,
			"node": "node", "node_flags": flags}
	}
	resolved, _ := json.Marshal(map[string]any{"environments": []map[string]any{
		{"name": "native", "kind": "native", "payload": "native", "host": "os"},
		emscripten("emscripten-chromium", "system", 0), emscripten("emscripten-6-chromium", "sid", 0),
		emscripten("emscripten-pool-chromium", "system", 16),
		node("manual-node", "system", []string{"--x"}), node("manual-node-24", "sid", nil),
	}})
	s.Provenance.Invocations[0].Resolved = resolved
	r, err := report.Build([]report.Input{{Dir: "set", Set: s}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Releases) != 0 {
		t.Errorf("Wasmtime release rows %+v, want none", r.Releases)
	}
	want := map[string]struct {
		older, tool, from, to string
	}{
		"emscripten-6-chromium": {"emscripten-chromium", "Emscripten", "3.1.6", "6.0.5"},
		"manual-node-24":        {"manual-node", "Node.js", "20.20.2", "24.22.2"},
	}
	if len(r.ToolReleases) != len(want)*2*2 {
		t.Fatalf("%d tool release rows, want %d (2 pairs × 2 modes × 2 n): %+v", len(r.ToolReleases), len(want)*4, r.ToolReleases)
	}
	for _, q := range r.ToolReleases {
		w, ok := want[q.Environment]
		if !ok || q.Older != w.older || len(q.Changes) != 1 || q.Changes[0] != (report.ReleaseChange{Tool: w.tool, Older: w.from, Newer: w.to}) {
			t.Errorf("row %s against %s: changes %+v, want %+v", q.Environment, q.Older, q.Changes, w)
			continue
		}
		c, o := r.Cell(q.Environment, q.Mode, report.Column{N: q.N}), r.Cell(q.Older, q.Mode, report.Column{N: q.N})
		if q.Estimate.TypicalUS != c.Stats.TypicalUS || q.OlderEstimate.TypicalUS != o.Stats.TypicalUS {
			t.Errorf("%s %s n=%d: estimates %v and %v, want the cells' %v and %v", q.Environment, q.Mode, q.N,
				q.Estimate.TypicalUS, q.OlderEstimate.TypicalUS, c.Stats.TypicalUS, o.Stats.TypicalUS)
		}
		// releaseSet makes each environment slower than the one before it.
		wantRatio := float64(c.Stats.TypicalUS) / float64(o.Stats.TypicalUS)
		if got := float64(q.Ratio.Ratio); got < wantRatio*0.99 || got > wantRatio*1.01 || q.Ratio.Low <= 0 || q.Ratio.High < q.Ratio.Ratio {
			t.Errorf("%s %s n=%d: ratio %+v, want %.3f with its interval", q.Environment, q.Mode, q.N, q.Ratio, wantRatio)
		}
	}
	var b bytes.Buffer
	if err := Write(r, &b, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	i := strings.Index(md, "## Spawn cost by Emscripten, Node.js and Firefox release")
	if i < 0 {
		t.Fatalf("no release section:\n%s", md)
	}
	section := md[i:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	for _, s := range []string{"| Releases | Environment | Older | Mode | n | Typical | 95% CI | Older's typical | 95% CI | ÷ older |",
		"| Emscripten 3.1.6 → 6.0.5 | emscripten-6-chromium | emscripten-chromium | sequential | 1 | ",
		"| Node.js 20.20.2 → 24.22.2 | manual-node-24 | manual-node | parallel | 10 | "} {
		if !strings.Contains(section, s) {
			t.Errorf("release section lacks %q:\n%s", s, section)
		}
	}
	if strings.Contains(section, "emscripten-pool-chromium") {
		t.Errorf("the pool, whose settings differ, is paired:\n%s", section)
	}
}
