package render

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestReleasesTableOrdersReleasesByVersion: the section's rows come in
// mode and n order and, within each, by version number (9 < 36 < 42,
// which as strings would sort 36, 42, 9); each release is the version its
// run recorded, so an environment whose name says nothing
// ("wasmtime-latest") is placed by its CLI's version; each row has its
// figure, interval, processes and ratio to native.
func TestReleasesTableOrdersReleasesByVersion(t *testing.T) {
	t.Parallel()
	envs := []string{"wasmtime-46", "wasmtime-42", "wasmtime-latest", "wasmtime-9", "wasmtime-36"}
	tcs := `{"native":"gcc (Debian 12.2.0-14+deb12u1) 12.2.0",` +
		`"wasmtime-46":"` + reporttest.CLIToolchain("46.0.1") + `","wasmtime-42":"` + reporttest.CLIToolchain("42.0.1") + `",` +
		`"wasmtime-latest":"` + reporttest.CLIToolchain("45.0.2") + `","wasmtime-9":"` + reporttest.CLIToolchain("9.0.4") + `",` +
		`"wasmtime-36":"` + reporttest.CLIToolchain("36.0.9") + `"}`
	r, err := report.Build([]report.Input{{Dir: "set", Set: reporttest.ReleaseSet(envs, tcs)}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []string{"9.0.4", "36.0.9", "42.0.1", "45.0.2", "46.0.1"}
	wantEnv := map[string]string{"9.0.4": "wasmtime-9", "36.0.9": "wasmtime-36", "42.0.1": "wasmtime-42", "45.0.2": "wasmtime-latest", "46.0.1": "wasmtime-46"}
	if len(r.Releases) != 2*2*len(wantOrder) {
		t.Fatalf("%d release rows, want %d (2 modes × 2 n × %d releases): %+v", len(r.Releases), 4*len(wantOrder), len(wantOrder), r.Releases)
	}
	for block, mn := range []struct {
		mode string
		n    int32
	}{{"sequential", 1}, {"sequential", 10}, {"parallel", 1}, {"parallel", 10}} {
		rows := r.Releases[block*len(wantOrder) : (block+1)*len(wantOrder)]
		var got []string
		for _, q := range rows {
			got = append(got, q.Version)
			if q.Mode != mn.mode || q.N != mn.n {
				t.Errorf("row %s %s n=%d in the block of %s n=%d", q.Environment, q.Mode, q.N, mn.mode, mn.n)
			}
			if q.Payload != "wasi-freestanding" {
				t.Errorf("%s: payload %q, want the kind's, wasi-freestanding", q.Environment, q.Payload)
			}
			if q.Environment != wantEnv[q.Version] || q.Release != strings.Split(q.Version, ".")[0] {
				t.Errorf("version %s: environment %s release %s, want %s release %s", q.Version, q.Environment, q.Release, wantEnv[q.Version], strings.Split(q.Version, ".")[0])
			}
			c := r.Cell(q.Environment, q.Mode, report.Column{N: q.N})
			if q.Estimate.Processes != 10 || q.Estimate.TypicalUS != c.Stats.TypicalUS || !q.Estimate.Bounded() {
				t.Errorf("%s %s n=%d: estimate %+v, want the cell's over its 10 processes, with an interval", q.Environment, q.Mode, q.N, q.Estimate)
			}
			if q.Ratio == nil || q.Ratio.Baseline != "native" || q.Ratio.Ratio <= 1 || q.Ratio.Low <= 0 {
				t.Errorf("%s %s n=%d: ratio %+v, want one above 1 to native with its interval", q.Environment, q.Mode, q.N, q.Ratio)
			}
		}
		if !slices.Equal(got, wantOrder) {
			t.Errorf("%s n=%d: releases in order %v, want %v", mn.mode, mn.n, got, wantOrder)
		}
	}

	dir := t.TempDir()
	plots, err := WritePlots(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if st, err := os.Stat(filepath.Join(dir, releasesPlotBase+ext)); err != nil || st.Size() < 1000 {
			t.Errorf("release plot %s: %v", ext, err)
		}
	}
	var b bytes.Buffer
	if err := Write(r, &b, FormatMarkdown, plots); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	section := md[strings.Index(md, "## Spawn cost by Wasmtime release"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	if !strings.Contains(section, "| Release | Version | Environment | Mode | n | Typical | 95% CI | Processes | ÷ native |") ||
		!strings.Contains(section, "| 9 | 9.0.4 | wasmtime-9 | sequential | 1 | ") ||
		!strings.Contains(section, "![Typical spawn time by Wasmtime release]("+releasesPlotBase+".png)") {
		t.Errorf("release section lacks its header, a row or its plot:\n%s", section)
	}
	if i, j := strings.Index(section, "| 9.0.4 |"), strings.Index(section, "| 36.0.9 |"); i < 0 || j < i {
		t.Errorf("9.0.4 is not listed before 36.0.9:\n%s", section)
	}
	if strings.Count(md, releasesPlotBase+".png") != 1 {
		t.Errorf("the release plot is shown %d times, want once, with its table", strings.Count(md, releasesPlotBase+".png"))
	}
}

// TestReleasesSectionNeedsTwoReleases: one release (even in two
// environments) is nothing to set side by side, and an environment whose
// run recorded no CLI version is not placed by its name.
func TestReleasesSectionNeedsTwoReleases(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		envs []string
		tcs  string
	}{
		"one release": {[]string{"wasmtime-46"}, `{"wasmtime-46":"` + reporttest.CLIToolchain("46.0.1") + `"}`},
		"one release twice": {[]string{"wasmtime-46", "wasmtime-46-again"},
			`{"wasmtime-46":"` + reporttest.CLIToolchain("46.0.1") + `","wasmtime-46-again":"` + reporttest.CLIToolchain("46.0.1") + `"}`},
		"no recorded version": {[]string{"wasmtime-46", "wasmtime-36"}, `{"wasmtime-46":"` + reporttest.CLIToolchain("46.0.1") + `"}`},
	} {
		r, err := report.Build([]report.Input{{Dir: "set", Set: reporttest.ReleaseSet(c.envs, c.tcs)}}, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Releases) != 0 {
			t.Errorf("%s: %d release rows, want none", name, len(r.Releases))
		}
		b := markdownOf(t, r)
		if strings.Contains(b.String(), "Spawn cost by Wasmtime release") {
			t.Errorf("%s: the report has a release section", name)
		}
	}
}
