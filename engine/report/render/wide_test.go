package render

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
)

// wideKinds are sixteen environments as a full run names them, one or
// more of every kind, with their kinds.
var wideKinds = [][2]string{
	{"native", "native"},
	{"wasi-threads", "wasi-threads"}, {"wasi-threads-pooled", "wasi-threads"},
	{"wasmtime-46", "wasmtime-cli"}, {"wasmtime-36", "wasmtime-cli"},
	{"wasi-threads-node", "wasi-threads-node"}, {"wasi-threads-chromium", "wasi-threads-chromium"},
	{"wasi-threads-firefox", "wasi-threads-firefox"},
	{"emscripten", "emscripten"}, {"emscripten-pool", "emscripten"}, {"emscripten-chromium", "emscripten-chromium"},
	{"emscripten-firefox", "emscripten-firefox"},
	{"manual", "manual"}, {"manual-node", "manual-node"}, {"manual-firefox", "manual-firefox"},
	{"custom", "command"},
}

// wideSet is a sixteen-environment set: sequential n = 1, 10 and 100,
// each environment a little slower than the one before it. The
// environments are listed out of family order on purpose.
func wideSet() *results.Set {
	s := &results.Set{Provenance: fixtureProvenance("", "")}
	order := []int{12, 0, 8, 5, 1, 15, 2, 9, 3, 13, 4, 10, 6, 14, 7, 11}
	for _, i := range order {
		env := wideKinds[i][0]
		for _, n := range []int32{1, 10, 100} {
			addCell(s, cellSpec{env: env, mode: "sequential", n: n, processes: int(max(3, 30/n)),
				spawnNS: lognormalSpawns(20e3*float64(1+i), uint64(i)*100+uint64(n))})
		}
	}
	for i := range s.Samples {
		s.Samples[i].Kind = kindOf(s.Samples[i].Environment)
	}
	for i := range s.Runs {
		s.Runs[i].Kind = kindOf(s.Runs[i].Environment)
	}
	return s
}

func kindOf(env string) string {
	for _, ek := range wideKinds {
		if ek[0] == env {
			return ek[1]
		}
	}
	return ""
}

func TestTwentyEnvironmentsNeverShareAColourOrMarker(t *testing.T) {
	t.Parallel()
	colours := map[color.NRGBA]int{}
	for i, c := range palette[:20] {
		if j, ok := colours[c]; ok {
			t.Errorf("environments %d and %d share colour %v", j, i, c)
		}
		colours[c] = i
	}
	shapes := map[marker]int{}
	for i, m := range markers[:20] {
		if j, ok := shapes[m]; ok {
			t.Errorf("environments %d and %d share marker %+v", j, i, m)
		}
		shapes[m] = i
	}
}

func TestSixteenEnvironmentsGroupedByFamily(t *testing.T) {
	t.Parallel()
	r := build(t, wideSet())
	var got []string
	for _, env := range r.Environments {
		got = append(got, r.Family(env)+":"+env)
	}
	for i := 1; i < len(r.Environments); i++ {
		a, b := r.Family(r.Environments[i-1]), r.Family(r.Environments[i])
		if indexOf(hostfacts.Families, a) > indexOf(hostfacts.Families, b) {
			t.Fatalf("environments not grouped by family: %v", got)
		}
	}
	md := markdownOf(t, r)
	out := md.String()
	classic := out[strings.Index(out, "### Mean spawn time"):strings.Index(out, "### Provenance")]
	prev := -1
	for _, f := range []string{hostfacts.Native, hostfacts.Wasmtime, hostfacts.JSHosts, hostfacts.Emscripten, hostfacts.RawWorkers, hostfacts.Other} {
		i := strings.Index(classic, "| **"+f+"** |")
		if i < 0 || i < prev {
			t.Errorf("classic table lacks a %q heading row in family order:\n%s", f, classic)
		}
		prev = i
	}
	// Every row under the JS hosts heading is a JS host.
	js := classic[strings.Index(classic, "| **JS hosts** |"):strings.Index(classic, "| **Emscripten** |")]
	for _, env := range []string{"wasi-threads-node", "wasi-threads-chromium", "wasi-threads-firefox"} {
		if !strings.Contains(js, "| "+env+" | sequential |") {
			t.Errorf("JS hosts group lacks %s:\n%s", env, js)
		}
	}

	dir := t.TempDir()
	if keep := os.Getenv("SPAWNBENCH_KEEP_PLOTS"); keep != "" {
		dir = keep
	}
	plots, err := WritePlots(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 5 {
		t.Errorf("%d plots, want 3 distributions and 2 spawn-order plots", len(plots))
	}
	svg, err := os.ReadFile(filepath.Join(dir, "order-sequential-n100.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ek := range wideKinds {
		if !strings.Contains(string(svg), ek[0]+" (3 processes)") {
			t.Errorf("spawn-order plot has no panel titled %q", ek[0]+" (3 processes)")
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
