package render

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

func TestWriteDirWritesReportAndPlots(t *testing.T) {
	t.Parallel()
	s := reporttest.RealisticSet(t)
	dir := writeSet(t, s)
	if _, err := WriteDir(dir, s); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	links := strings.Count(string(md), "](plots/")
	// Distributions for 4 sequential and 2 parallel n; spawn order for
	// the 3 sequential n above 1.
	if links != 9 {
		t.Errorf("report.md links %d plots, want 9", links)
	}
	for _, base := range []string{"dist-sequential-n1", "dist-parallel-n100", "order-sequential-n10"} {
		f, err := os.Open(filepath.Join(dir, PlotsDir, base+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", base, err)
		}
		if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 600 {
			t.Errorf("%s.png is %dx%d, too small to read", base, b.Dx(), b.Dy())
		}
		svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, base+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), "native") {
			t.Errorf("%s.svg does not name the environments", base)
		}
	}
	// emscripten ran out of memory at n = 1000: its slot says so.
	svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, "dist-sequential-n1000.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "(OOM)") || !strings.Contains(string(svg), "clock NOT trusted") {
		t.Error("n=1000 distribution plot does not show emscripten's OOM or wasi-threads' untrusted clock")
	}
}

func TestPlotsCountSamplesTheLogAxisCannotShow(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 10, Processes: 3, Untrusted: true,
		SpawnNS: func(p, t int) int64 { return int64(1000 * (t - 2)) }})
	r := reporttest.Build(t, s)
	dir := t.TempDir()
	plots, err := WritePlots(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 2 {
		t.Fatalf("plots = %+v, want a distribution and a spawn-order plot", plots)
	}
	for _, p := range plots {
		svg, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(p.Path, ".png")+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		// Threads 0..2 of each of 3 processes have spawn_ns <= 0.
		if !strings.Contains(string(svg), "9 samples ≤ 0 ns not shown") {
			t.Errorf("%s does not count the 9 undrawable samples", p.Path)
		}
	}
}

// writeSet writes s into a new directory of t's and returns it.
func writeSet(t *testing.T, s interface{ Write(string) error }) string {
	t.Helper()
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
