package stats

import "testing"

// TestClockCouldMove: a few untrusted processes among many cannot move a
// cell's figure outside its interval; half of a small cell's can; a cell
// without an interval could move with any; none at all moves nothing.
func TestClockCouldMove(t *testing.T) {
	t.Parallel()
	cell := func(k int) []Process {
		procs := make([]Process, k)
		for i := range procs {
			procs[i].Value = 100 + float64((i*37)%23) // 100..122 µs, spread evenly
		}
		return procs
	}
	taint := func(k int, which ...int) []bool {
		out := make([]bool, k)
		for _, i := range which {
			out[i] = true
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		processes int
		tainted   []int
		want      bool
	}{
		{"none untrusted", 100, nil, false},
		{"one process of 100", 100, []int{7}, false},
		{"half of 10 processes", 10, []int{0, 1, 2, 3, 4}, true},
		{"one of 3 processes, no interval", 3, []int{1}, true},
	} {
		procs := cell(tc.processes)
		e := Summarize(procs)
		if got := ClockCouldMove(procs, taint(tc.processes, tc.tainted...), e); got != tc.want {
			t.Errorf("%s: could move = %v, want %v (figure %.4g [%.4g, %.4g])", tc.name, got, tc.want, e.Center, e.Low, e.High)
		}
	}
}
