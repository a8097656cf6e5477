package run

import (
	"context"
	"strconv"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// Native spawns record both CPUs: unpinned on a machine of two or more
// CPUs, some children start on their parent's CPU and some on another (the
// scheduler decides, so a few processes are tried before failing); pinned
// to one CPU, every spawn is same-cpu, on that CPU.
func TestNativeRecordsPlacement(t *testing.T) {
	t.Parallel()
	cpus := availableCPUs(t)
	if len(cpus) < 2 {
		t.Skipf("needs two CPUs, this process may use %v", cpus)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	one := strconv.Itoa(cpus[len(cpus)-1])
	src := `environments: [
	{name: "free", kind: "native"},
	{name: "one", kind: "native", pinning: cpus: [` + one + `]},
]
n: [500]
samples: {min: 500, processes: 1}
`
	set, _, err := runSpec(t, ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	shares := func(set *results.Set, env string) map[results.Placement]int {
		out := map[results.Placement]int{}
		for _, s := range set.Samples {
			if s.Environment == env {
				out[s.Placement()]++
			}
		}
		return out
	}
	for _, r := range set.Runs {
		want := one
		if r.Environment == "free" {
			want = allowedCPUs(nil).String()
		}
		if r.Status != results.StatusOK || r.AllowedCPUs.String() != want || len(r.AllowedCPUs) == 0 {
			t.Errorf("%s: status %s, allowed CPUs %q, want ok and %q", r.Environment, r.Status, r.AllowedCPUs, want)
		}
	}
	if got := shares(set, "one"); got[results.SameCPU] != 500 {
		t.Errorf("pinned to CPU %s: placements %v, want 500 same-cpu", one, got)
	}
	for _, s := range set.Samples {
		if s.Environment == "one" && (*s.ParentCPU != int32(cpus[len(cpus)-1]) || *s.ChildCPU != *s.ParentCPU) {
			t.Fatalf("pinned to CPU %s, a spawn ran on %d and %d", one, *s.ParentCPU, *s.ChildCPU)
		}
	}
	got := shares(set, "free")
	for try := 1; try < 5 && (got[results.SameCPU] == 0 || got[results.OtherCPU] == 0); try++ {
		more, _, err := runSpec(t, ctx, src, "free")
		if err != nil {
			t.Fatal(err)
		}
		for p, k := range shares(more, "free") {
			got[p] += k
		}
	}
	if got[results.SameCPU] == 0 || got[results.OtherCPU] == 0 || got[results.UnknownPlacement] != 0 {
		t.Errorf("unpinned, over up to 5 processes of 500 spawns: placements %v, want both same-cpu and other-cpu, none unknown", got)
	}
	t.Logf("unpinned: %v", got)
}

// A one-CPU twin (the spec's placement block) runs as an environment of
// its own, pinned to the one CPU, every child on its parent's CPU, and
// its rows say which environment it measures; every process, twin or
// not, records its settle step.
func TestOneCPUTwinRunsOnOneCPU(t *testing.T) {
	t.Parallel()
	cpus := availableCPUs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	set, _, err := runSpec(t, ctx, `environments: [{name: "native", kind: "native"}]
n: [100]
samples: {min: 100, processes: 3}
placement: one_cpu: ["native"]
schedule: settle: cap: "200ms" // on, for the settle step each process records; short beside the tests' load
`)
	if err != nil {
		t.Fatal(err)
	}
	last := int32(cpus[len(cpus)-1])
	counts := map[string]int{}
	for _, r := range set.Runs {
		counts[r.Environment]++
		wantPlacement, wantOf := "free", ""
		if r.Environment == "native@one-cpu" {
			wantPlacement, wantOf = "one-cpu", "native"
			if len(r.CPUs) != 1 || r.CPUs[0] != last {
				t.Errorf("native@one-cpu pinned to %v, want [%d], the last CPU it may use", r.CPUs, last)
			}
		}
		if r.Placement != wantPlacement || r.PlacementOf != wantOf {
			t.Errorf("%s: placement %q of %q, want %q of %q", r.Environment, r.Placement, r.PlacementOf, wantPlacement, wantOf)
		}
		if r.SettleNS == nil || *r.SettleNS <= 0 || r.SettleOthersCPUs == nil || *r.SettleOthersCPUs < 0 {
			t.Errorf("%s process %d: settle %v, others %v; want the settle step's wait and reading", r.Environment, r.Process, r.SettleNS, r.SettleOthersCPUs)
		}
	}
	if counts["native"] != 3 || counts["native@one-cpu"] != 3 {
		t.Errorf("processes per environment %v, want 3 of native and 3 of native@one-cpu", counts)
	}
	for _, s := range set.Samples {
		if s.Environment == "native@one-cpu" && (*s.ParentCPU != last || *s.ChildCPU != last) {
			t.Fatalf("on one CPU (%d), a spawn ran on %d and %d", last, *s.ParentCPU, *s.ChildCPU)
		}
	}
}
