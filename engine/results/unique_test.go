package results

import (
	"strings"
	"testing"
)

// TestCheckUniqueFindsARepeatedSpawnWhereverItIs: a thread twice in one
// process is refused wherever its rows are (next to each other, apart,
// past the bits of the thread set, negative), naming the spawn; the same
// thread in another process, machine or warm-up is not a repeat, nor a
// process's spawns split by another's rows.
func TestCheckUniqueFindsARepeatedSpawnWhereverItIs(t *testing.T) {
	spawn := func(process, thread int32) SpawnSample {
		return SpawnSample{Environment: "native", Mode: "sequential", N: 2, Process: process, Thread: thread}
	}
	warm := spawn(0, 0)
	warm.Warmup = true
	elsewhere := spawn(0, 0)
	elsewhere.Machine = "other"
	distinct := []SpawnSample{spawn(0, 0), spawn(1, 0), spawn(0, 1), warm, elsewhere, spawn(0, maxThreadBit), spawn(0, -1), spawn(1, 1)}
	if err := CheckUnique("d", &Set{Samples: distinct}); err != nil {
		t.Errorf("distinct spawns refused: %v", err)
	}
	for name, c := range map[string]struct {
		samples []SpawnSample
		want    string
	}{
		"next to each other": {[]SpawnSample{spawn(0, 0), spawn(0, 1), spawn(0, 1)}, "spawn (process 0, thread 1)"},
		"apart":              {[]SpawnSample{spawn(0, 3), spawn(1, 3), spawn(0, 3)}, "spawn (process 0, thread 3)"},
		"past the bits":      {[]SpawnSample{spawn(2, maxThreadBit+5), spawn(2, maxThreadBit+5)}, "thread 1048581)"},
		"negative":           {[]SpawnSample{spawn(2, -7), spawn(2, -7)}, "thread -7)"},
		"a warm-up":          {[]SpawnSample{warm, warm}, "warm-up spawn (process 0, thread 0)"},
	} {
		err := CheckUnique("d", &Set{Samples: c.samples})
		if err == nil || !strings.Contains(err.Error(), "d holds cell native/sequential/2 twice") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want the cell and %q", name, err, c.want)
		}
	}
}
