package report_test

import (
	"errors"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

func TestMergeRefusesMixedSpecs(t *testing.T) {
	t.Parallel()
	a := reporttest.MachineSet(t, "host-a", 10, 30, "hash-one")
	b := reporttest.MachineSet(t, "host-b", 20, 100, "hash-two")
	_, err := results.Merge([]results.Part{{Dir: "dir-a", Set: a}, {Dir: "dir-b", Set: b}}, results.Invocation{}, results.MergeOptions{})
	var in *inputerr.Error
	if !errors.As(err, &in) {
		t.Fatalf("mixed spec hashes: %v, want an input error", err)
	}
	for _, want := range []string{"dir-a", "dir-b", "hash-one", "hash-two"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestRatiosStayWithinEachMachine: machine a's native takes 10 µs and
// its wasm 30; machine b's 20 and 100. Per-machine ratios are 3 and 5;
// any ratio across machines (1.5, 10) is a defect.
func TestRatiosStayWithinEachMachine(t *testing.T) {
	t.Parallel()
	r, idA, idB := reporttest.TwoMachines(t)
	if len(r.Machines) != 2 || r.Machines[0].ID != idA || r.Machines[1].ID != idB {
		t.Fatalf("machines %+v", r.Machines)
	}
	for _, c := range []struct {
		machine string
		want    float64
	}{{idA, 3}, {idB, 5}} {
		for _, n := range []int32{1, 10} {
			q := r.MachineRatio(c.machine, "wasm", "sequential", report.Column{N: n})
			if q == nil || float64(q.Ratio) < c.want*0.999 || float64(q.Ratio) > c.want*1.001 {
				t.Errorf("machine %s n=%d: ratio %+v, want %g", c.machine, n, q, c.want)
			}
		}
	}
	if len(r.Ratios) != 4 {
		t.Errorf("%d ratios, want 2 machines × 2 n", len(r.Ratios))
	}
}

// TestCompareMatchesMachines: a merged set against itself matches every
// cell on its own machine; two one-machine sets from different machines
// compare with a warning.
func TestCompareMatchesMachines(t *testing.T) {
	t.Parallel()
	a := reporttest.MachineSet(t, "host-a", 10, 30, "hash")
	b := reporttest.MachineSet(t, "host-b", 20, 100, "hash")
	dir, merged := reporttest.MergedOnDisk(t, a, b)
	cmp, err := report.Compare(report.Input{Dir: dir, Set: merged}, report.Input{Dir: dir, Set: merged}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.DifferentMachines || len(cmp.Changes) != 8 {
		t.Fatalf("self-compare: different machines %v, %d changes", cmp.DifferentMachines, len(cmp.Changes))
	}
	for _, ch := range cmp.Changes {
		if ch.ChangePct != 0 {
			t.Errorf("%s %s n=%d on %s: change %v%%, want 0 (matched across machines?)", ch.Environment, ch.Mode, ch.N, ch.Machine, ch.ChangePct)
		}
	}
	cmp, err = report.Compare(report.Input{Dir: "a", Set: a}, report.Input{Dir: "b", Set: b}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.DifferentMachines || len(cmp.OldMachines) != 1 || len(cmp.NewMachines) != 1 || len(cmp.Changes) != 4 {
		t.Errorf("two one-machine sets: different machines %v (%v, %v), %d changes; want true and the 4 cells matched", cmp.DifferentMachines, cmp.OldMachines, cmp.NewMachines, len(cmp.Changes))
	}
}
