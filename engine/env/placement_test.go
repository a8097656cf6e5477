package env_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
)

// The wasi-threads environment's spawns carry the CPUs the embedded host
// noted (its "#cpu" lines, merged by the Collector): every one a CPU the
// process may run on, in both modes; pinned to one CPU, that CPU.
func TestWasiThreadsRecordsValidCPUs(t *testing.T) {
	t.Parallel()
	f := setUpWasiThreads(t)
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	last := -1
	for c := 0; c < 1024; c++ {
		if allowed.IsSet(c) {
			last = c
		}
	}
	for _, tc := range []struct {
		name      string
		benchmark env.Benchmark
		cpus      []int
	}{
		{"sequential", env.Sequential, nil},
		{"parallel", env.Parallel, nil},
		{"sequential pinned", env.Sequential, []int{last}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 50
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := protocol.NewCollector(n)
			out, err := f.env.Run(ctx, env.Repetition{Benchmark: tc.benchmark, Arg: n, BuildDir: f.buildDir, CPUs: tc.cpus, Stdout: c})
			c.Close()
			if err != nil || out.ExitCode != 0 || c.Err() != nil {
				t.Fatalf("err %v, exit %d, protocol %v, stderr %q", err, out.ExitCode, c.Err(), out.Stderr)
			}
			lines := c.Lines()
			if len(lines) != n {
				t.Fatalf("%d spawn lines, want %d", len(lines), n)
			}
			for i, l := range lines {
				if l.ParentCPU == nil || l.ChildCPU == nil {
					t.Fatalf("spawn %d: parent CPU %v, child CPU %v: want both", i, l.ParentCPU, l.ChildCPU)
				}
				for _, cpu := range []int32{*l.ParentCPU, *l.ChildCPU} {
					if !allowed.IsSet(int(cpu)) || (tc.cpus != nil && int(cpu) != last) {
						t.Errorf("spawn %d ran on CPU %d; allowed %v, pinned to %v", i, cpu, allowed, tc.cpus)
					}
				}
			}
		})
	}
}
