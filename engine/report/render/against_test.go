package render

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestAgainstDividesEachCellByItsPartner: an environment set against
// another in its spec gets a side-by-side ratio per cell, with an
// interval that holds the true ratio (2× here) and the processes behind
// both sides; environments set against nothing get none.
func TestAgainstDividesEachCellByItsPartner(t *testing.T) {
	t.Parallel()
	set := &results.Set{Provenance: reporttest.Provenance("", "")}
	set.Provenance.Invocations[0].Resolved = []byte(`{"environments": [{"name": "native"}, {"name": "libc", "against": "free"}, {"name": "free"}]}`)
	for i, env := range []string{"native", "free", "libc"} {
		median := map[string]float64{"native": 20e3, "free": 40e3, "libc": 80e3}[env]
		for _, n := range []int32{10, 100} {
			reporttest.AddCell(set, reporttest.Cell{Env: env, Mode: "sequential", N: n, Processes: 10, SpawnNS: reporttest.LognormalSpawns(median, uint64(i*100)+uint64(n))})
		}
	}
	r, err := report.Build([]report.Input{{Dir: "d", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Against) != 3 {
		t.Fatalf("against ratios %+v, want libc ÷ free at n = 10, 100 and 100 (last 10)", r.Against)
	}
	for _, q := range r.Against {
		if q.Environment != "libc" || q.Baseline != "free" || q.Processes != 10 || q.BaselineProcesses != 10 ||
			!(float64(q.Low) < 2 && 2 < float64(q.High)) || math.Abs(float64(q.Ratio)-2) > 0.3 {
			t.Errorf("against ratio %+v, want libc ÷ free near 2× over 10 + 10 processes, its interval holding 2", q)
		}
	}
	var b bytes.Buffer
	if err := Write(r, &b, "md", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## Side by side") || !strings.Contains(b.String(), "| libc | free | sequential |") {
		t.Errorf("the markdown report has no side-by-side row for libc against free:\n%s", b.String())
	}
}
