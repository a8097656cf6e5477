package stats

import "testing"

// TestBusyDespiteAHeavyTail: processes beside two CPU hogs read others'
// CPU at about 1.5 times their wall time, a few of them far more (they
// waited long for a CPU); the cell is busy, though the tail widens the
// plain standard error. And on an idle machine one 10 ms tick that lands
// in one of ten 1 ms processes is no busy cell.
func TestBusyDespiteAHeavyTail(t *testing.T) {
	var hogged []ProcessLoad
	for i := range 30 {
		p := ProcessLoad{WallNS: 4e6, OthersNS: 6e6, StealNS: 0}
		if i%10 == 0 {
			p = ProcessLoad{WallNS: 20e6, OthersNS: 400e6, StealNS: 0}
		}
		hogged = append(hogged, p)
	}
	if l := Busy(hogged); !l.Busy {
		t.Errorf("beside CPU hogs (others %.0f%% of wall time): not busy", 100*l.OthersShare)
	}
	var idle []ProcessLoad
	for i := range 10 {
		p := ProcessLoad{WallNS: 1e6, OthersNS: 0, StealNS: 0}
		if i == 3 {
			p.OthersNS = 10e6
		}
		idle = append(idle, p)
	}
	if l := Busy(idle); l.Busy {
		t.Errorf("one tick in ten 1 ms processes (others %.0f%% of wall time): busy", 100*l.OthersShare)
	}
}
