package spec_test

import (
	"path/filepath"
	"slices"
	"testing"

	"spawnbench/engine/spec"
)

// TestMainJobReplicatesEveryCell: in the README's run (sequential.cue,
// parallel.cue) and in the whole study, every environment has at least 5
// processes in its n = 1 and n = 100 cells; the main job leaves out
// n = 1000 only for the hosts that start a worker per spawn and for the
// older releases it keeps beside today's (specs/shared's olderReleases),
// and the study measures every n of every environment.
func TestMainJobReplicatesEveryCell(t *testing.T) {
	workerPerSpawn := []string{"wasi-threads-node", "wasi-threads-chromium", "wasi-threads-firefox",
		"manual-node", "manual", "manual-firefox", "manual-bun", "manual-deno", "wasi-threads-bun", "wasi-threads-deno"}
	olderReleases := []string{"emscripten", "emscripten-chromium"} // and worker-per-spawn ones, above
	for _, c := range []struct {
		file  string
		study bool
	}{{"sequential.cue", false}, {"parallel.cue", false}, {"study.cue", true}} {
		p, err := spec.LoadPlan(filepath.Join("..", "..", "specs", c.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		cells := map[string]map[int]int{} // environment, n: processes of the first mode
		kinds := map[string]string{}
		for _, cell := range p.Cells {
			if cell.Env.Placement == spec.PlaceOneCPU || cell.Env.Traced {
				continue // the bottom line's cells only, held by TestOneCPUTwins and TestTracedTwins
			}
			if cells[cell.Env.Name] == nil {
				cells[cell.Env.Name] = map[int]int{}
			}
			if have, ok := cells[cell.Env.Name][cell.N]; !ok || cell.Processes < have {
				cells[cell.Env.Name][cell.N] = cell.Processes
			}
			kinds[cell.Env.Name] = cell.Env.Kind
		}
		for name, byN := range cells {
			for _, n := range []int{1, 100} {
				if byN[n] < 5 {
					t.Errorf("%s: %s n = %d has %d processes, want at least 5", c.file, name, n, byN[n])
				}
			}
			_, has1000 := byN[1000]
			mayDrop := !c.study && (slices.Contains(workerPerSpawn, kinds[name]) || slices.Contains(olderReleases, name))
			if !has1000 && !mayDrop {
				t.Errorf("%s: %s (%s) has no n = 1000 cell", c.file, name, kinds[name])
			}
		}
	}
}
