package spec

import (
	"path/filepath"
	"testing"
)

func TestShardsAreDisjointCompleteAndBalanced(t *testing.T) {
	for _, name := range []string{"sequential", "parallel"} {
		s, err := Load(filepath.Join("..", "..", "specs", name+".cue"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Expand(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 4, 5} {
			seen := map[string]int{}
			minWork, maxWork := -1, 0
			for k := range n {
				sh, err := p.Shard(k, n)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := p.Shard(k, n)
				work := 0
				for i, c := range sh.Cells {
					seen[c.Key()]++
					work += c.Work()
					if c.Index != i || again.Cells[i].Key() != c.Key() {
						t.Errorf("%s shard %d/%d: cell %d is %s (index %d), again %s", name, k, n, i, c.Key(), c.Index, again.Cells[i].Key())
					}
				}
				checkComplete(t, sh)
				if sh.Schedule.Seed != p.Schedule.Seed || sh.Schedule.Order != p.Schedule.Order {
					t.Errorf("shard schedule %s/%d, plan %s/%d", sh.Schedule.Order, sh.Schedule.Seed, p.Schedule.Order, p.Schedule.Seed)
				}
				if minWork < 0 || work < minWork {
					minWork = work
				}
				maxWork = max(maxWork, work)
			}
			for _, c := range p.Cells {
				if seen[c.Key()] != 1 {
					t.Errorf("%s %d shards: cell %s in %d shards", name, n, c.Key(), seen[c.Key()])
				}
			}
			if len(seen) != len(p.Cells) {
				t.Errorf("%s %d shards: %d cells, plan has %d", name, n, len(seen), len(p.Cells))
			}
			if maxWork > 2*minWork {
				t.Errorf("%s %d shards: work from %d to %d, more than 2x apart", name, n, minWork, maxWork)
			}
		}
	}
}

func TestShardBadInput(t *testing.T) {
	p := threeEnvs(t, "")
	for _, c := range [][2]int{{0, 0}, {-1, 2}, {2, 2}, {0, len(p.Cells) + 1}} {
		if _, err := p.Shard(c[0], c[1]); err == nil {
			t.Errorf("Shard(%d, %d) accepted", c[0], c[1])
		}
	}
}
