package run

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"spawnbench"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
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
samples: {min: 1, processes: 1}`))
	if err != nil {
		b.Fatal(err)
	}
	w, err := results.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	r := New(w, Options{Cache: &buildcache.Cache{Dir: b.TempDir(), Sources: spawnbench.Sources}})
	p, err := r.prepare(context.Background(), s.Environments[0])
	if err != nil || p.skip != "" {
		b.Fatal(err, p.skip)
	}
	plan, _ := spec.Expand(s, nil)
	cell := cellsOf(plan)[0]
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
		lines, _ := protocol.Parse(out)
		directSpawn = append(directSpawn, float64(lines[0].SpawnNS))

		start = time.Now()
		err = r.process(context.Background(), cell, p, step{Seq: i, Process: i})
		runnerWall = append(runnerWall, float64(time.Since(start)))
		last := r.Set().Runs[len(r.Set().Runs)-1]
		if err != nil || last.Status != "ok" {
			b.Fatalf("runner: %v %+v", err, last)
		}
		runnerSpawn = append(runnerSpawn, float64(r.Set().Samples[len(r.Set().Samples)-1].SpawnNS))
	}
	b.StopTimer()
	dw, rw := stats.Median(directWall), stats.Median(runnerWall)
	b.ReportMetric(dw/1e3, "direct-wall-µs")
	b.ReportMetric(rw/1e3, "runner-wall-µs")
	b.ReportMetric(rw/dw, "runner/direct")
	b.ReportMetric(stats.Median(directSpawn)/1e3, "direct-spawn-µs")
	b.ReportMetric(stats.Median(runnerSpawn)/1e3, "runner-spawn-µs")
	b.ReportMetric(0, "ns/op")
}
