package results

import (
	"math"
	"path/filepath"
	"testing"

	"spawnbench/engine/stats"
)

// TestStoredSummariesAreRecomputed: every process of the committed
// reference set stores the summary that stats.Typical gives its spawns
// (the one function the report's other views use too), to the ns.
func TestStoredSummariesAreRecomputed(t *testing.T) {
	set, err := Read(filepath.Join("..", "..", "results", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		env, mode  string
		n, process int32
		warmup     bool
	}
	spawns := map[key][]float64{}
	for _, s := range set.Samples {
		k := key{s.Environment, s.Mode, s.N, s.Process, s.Warmup}
		spawns[k] = append(spawns[k], float64(s.SpawnNS))
	}
	checked := 0
	for _, r := range set.Runs {
		v := spawns[key{r.Environment, r.Mode, r.N, r.Process, r.Warmup}]
		if r.TypicalSpawnNS == nil {
			if len(v) > 0 {
				t.Errorf("%s %s n=%d process %d: %d spawns but no typical_spawn_ns", r.Environment, r.Mode, r.N, r.Process, len(v))
			}
			continue
		}
		if want := int64(math.Round(stats.Typical(v))); *r.TypicalSpawnNS != want {
			t.Errorf("%s %s n=%d process %d: stored typical %d ns, recomputed %d", r.Environment, r.Mode, r.N, r.Process, *r.TypicalSpawnNS, want)
		}
		checked++
	}
	if checked < 1000 {
		t.Errorf("only %d processes checked", checked)
	}
}
