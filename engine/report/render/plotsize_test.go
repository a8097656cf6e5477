package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestPlotSizeDoesNotGrowWithSamples: issue 20, item 12 (a 3.6 M-sample
// set drew 110 MB SVGs, every sample a path). Ten times the samples make
// plots of about the same size; the boxes still count every sample. Both
// sides are past the points a plot draws (maxPointsDrawn); forty times,
// as before, showed the same in three times the time.
func TestPlotSizeDoesNotGrowWithSamples(t *testing.T) {
	t.Parallel()
	sizes := func(processes int) map[string]int64 {
		s := &results.Set{Provenance: reporttest.Provenance("", "")}
		reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 1000, Processes: processes, SpawnNS: reporttest.LognormalSpawns(40e3, 1)})
		reporttest.AddCell(s, reporttest.Cell{Env: "wasi-threads", Mode: "sequential", N: 1000, Processes: processes, SpawnNS: reporttest.LognormalSpawns(400e3, 2)})
		r := reporttest.Build(t, s)
		dir := t.TempDir()
		plots, err := WritePlots(r, dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, p := range plots {
			svg := filepath.Join(dir, strings.TrimSuffix(p.Path, ".png")+".svg")
			st, err := os.Stat(svg)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(svg)] = st.Size()
			if processes > 5 {
				b, _ := os.ReadFile(svg)
				if !strings.Contains(string(b), fmt.Sprintf("random %d", maxPointsDrawn)) {
					t.Errorf("%s does not say its points are a subsample", svg)
				}
			}
		}
		return out
	}
	small, large := sizes(5), sizes(50)
	if len(small) != 2 || len(large) != 2 {
		t.Fatalf("plots: %v and %v, want a distribution and an order plot each", small, large)
	}
	for name, s := range small {
		if l := large[name]; float64(l) > 1.3*float64(s) {
			t.Errorf("%s: %d bytes for 5k samples per environment, %d for 50k", name, s, l)
		}
		t.Logf("%s: %d bytes (5k samples), %d (50k)", name, s, large[name])
	}
}

// TestSubsampleIsEvenAndOrdered: k distinct indexes in order, spread over
// the whole range.
func TestSubsampleIsEvenAndOrdered(t *testing.T) {
	t.Parallel()
	got := subsample(100000, 3000, 7)
	if len(got) != 3000 {
		t.Fatalf("%d indexes, want 3000", len(got))
	}
	quarter := 0
	for i, k := range got {
		if i > 0 && k <= got[i-1] {
			t.Fatalf("indexes not increasing at %d: %d after %d", i, k, got[i-1])
		}
		if k < 25000 {
			quarter++
		}
	}
	if quarter < 600 || quarter > 900 {
		t.Errorf("%d of 3000 indexes in the first quarter, want about 750", quarter)
	}
	if n := len(subsample(10, 3000, 7)); n != 10 {
		t.Errorf("10 items subsample to %d", n)
	}
}
