package spec

import (
	"path/filepath"
	"testing"
	"time"
)

// weighByName is a cost that differs by environment and by processes,
// as real costs do.
func weighByName(c Cell) time.Duration {
	return time.Duration(c.Total()*(1+len(c.Env.Name))) * time.Millisecond
}

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
		var heaviest time.Duration
		for _, c := range p.Cells {
			heaviest = max(heaviest, weighByName(c))
		}
		for _, n := range []int{1, 2, 3, 4, 5} {
			seen := map[string]int{}
			minWork, maxWork := time.Duration(-1), time.Duration(0)
			for k := range n {
				sh, err := p.Shard(k, n, weighByName)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := p.Shard(k, n, weighByName)
				var work time.Duration
				for i, c := range sh.Cells {
					seen[c.Key()]++
					work += weighByName(c)
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
			// Costliest first to the least loaded: the last cell the
			// fullest shard got went to the emptiest one at the time.
			if maxWork > minWork+heaviest {
				t.Errorf("%s %d shards: cost from %s to %s, more than the costliest cell (%s) apart", name, n, minWork, maxWork, heaviest)
			}
		}
	}
}

// TestShardFollowsCost: a cell that costs as much as all others together
// gets a shard of its own, whatever its processes.
func TestShardFollowsCost(t *testing.T) {
	p := threeEnvs(t, "")
	heavy := p.Cells[len(p.Cells)-1].Key()
	weigh := func(c Cell) time.Duration {
		if c.Key() == heavy {
			return time.Duration(len(p.Cells)) * time.Second
		}
		return time.Second
	}
	sh, err := p.Shard(0, 2, weigh)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.Cells) != 1 || sh.Cells[0].Key() != heavy {
		var keys []string
		for _, c := range sh.Cells {
			keys = append(keys, c.Key())
		}
		t.Errorf("shard 0/2 holds %v, want %s alone", keys, heavy)
	}
}

func TestShardBadInput(t *testing.T) {
	p := threeEnvs(t, "")
	for _, c := range [][2]int{{0, 0}, {-1, 2}, {2, 2}, {0, len(p.Cells) + 1}} {
		if _, err := p.Shard(c[0], c[1], weighByName); err == nil {
			t.Errorf("Shard(%d, %d) accepted", c[0], c[1])
		}
	}
}
