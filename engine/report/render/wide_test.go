package render

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report/reporttest"
)

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
	r := reporttest.Build(t, reporttest.WideSet())
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
	for _, ek := range reporttest.WideKinds {
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
