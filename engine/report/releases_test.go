package report_test

import (
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
	r := reporttest.Build(t, reporttest.FiveReleasesSet())
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

}

// TestReleasesNeedTwoReleases: no release rows without two recorded
// versions to set side by side.
func TestReleasesNeedTwoReleases(t *testing.T) {
	t.Parallel()
	for name, set := range reporttest.SetsOfFewerThanTwoReleases() {
		if r := reporttest.Build(t, set); len(r.Releases) != 0 {
			t.Errorf("%s: %d release rows, want none", name, len(r.Releases))
		}
	}
}
