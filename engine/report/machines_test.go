package report_test

import (
	"errors"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
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
