package stats

import "slices"

// Shift is how a set of changes moved together (compare's changes, one a
// cell both sets measured): their median and how many of them share its
// sign. Two honest measurements of one machine have a median change near
// 0 and changes whose signs split about evenly; when most cells move one
// way together, what changed between the sets is the machine.
type Shift struct {
	// Median is the median change (NaN for none).
	Median float64
	// SameWay counts the changes of the median's sign; a change of 0
	// goes neither way.
	SameWay int
}

// ShiftOf is the shift of changes (any unit); changes are not modified.
func ShiftOf(changes []float64) Shift {
	sorted := slices.Clone(changes)
	slices.Sort(sorted)
	s := Shift{Median: SortedQuantile(sorted, 0.5)}
	for _, c := range sorted {
		if (c > 0) == (s.Median > 0) && c != 0 {
			s.SameWay++
		}
	}
	return s
}
