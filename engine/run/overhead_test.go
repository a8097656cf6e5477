package run

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"spawnbench"
	"spawnbench/engine/spec"
)

// BenchmarkRunnerOverhead measures what spawnbench adds to a benchmark
// process: each iteration runs the native sequential benchmark (n = 1)
// once exec'd directly from Go and once through the runner (locked
// forking thread, process group, timeout, parsing, recording), neither
// pinned, alternating so both see the
// same machine state. It reports the median wall time of each, their
// ratio, and the median spawn time each measured.
//
//	go test -run '^$' -bench RunnerOverhead -benchtime 200x ./engine/run
func BenchmarkRunnerOverhead(b *testing.B) {
	s, err := spec.Parse("overhead.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
samples: min: 1`))
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(Options{OutDir: b.TempDir(), Cache: &BuildCache{Dir: b.TempDir(), Sources: spawnbench.Sources}})
	if err != nil {
		b.Fatal(err)
	}
	p := r.prepare(context.Background(), s.Environments[0])
	if p.skip != "" {
		b.Fatal(p.skip)
	}
	plan, _ := spec.Expand(s, nil)
	cell := plan.Cells[0]
	exe := filepath.Join(p.buildDir, "sequential")
	var directWall, runnerWall, directSpawn, runnerSpawn []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out, err := exec.Command(exe, "1").Output()
		directWall = append(directWall, float64(time.Since(start)))
		if err != nil {
			b.Fatal(err)
		}
		lines, _ := parseLines(bytes.TrimSpace(out))
		directSpawn = append(directSpawn, float64(lines[0].spawn))

		start = time.Now()
		run, err := r.repetition(context.Background(), s, cell, p, "sequential", i, false)
		runnerWall = append(runnerWall, float64(time.Since(start)))
		if err != nil || run.Status != "ok" {
			b.Fatalf("runner: %v %+v", err, run)
		}
		runnerSpawn = append(runnerSpawn, float64(r.set.Samples[len(r.set.Samples)-1].SpawnNS))
	}
	b.StopTimer()
	dw, rw := median(directWall), median(runnerWall)
	b.ReportMetric(dw/1e3, "direct-wall-µs")
	b.ReportMetric(rw/1e3, "runner-wall-µs")
	b.ReportMetric(rw/dw, "runner/direct")
	b.ReportMetric(median(directSpawn)/1e3, "direct-spawn-µs")
	b.ReportMetric(median(runnerSpawn)/1e3, "runner-spawn-µs")
	b.ReportMetric(0, "ns/op")
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
