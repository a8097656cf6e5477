// Package textfmt prints spawnbench's numbers in words, the one way every
// output does: the report's renderers, and the runner's progress lines
// and end-of-run warnings. A figure reads the
// same wherever it appears.
//
// This package is opinionated: times are printed in the unit their size
// calls for (ns, µs, ms or s) and ratios to about three significant
// digits, which is more than run-to-run noise allows anyway (people read
// "15.1 s", not "15103775"); an unbounded interval is printed as the
// reason it has none, never as a number. Nothing here computes a
// statistic: the numbers come from engine/stats and the report.
package textfmt

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/stats"
)

// TimeUS prints a time given in microseconds in the unit its size calls
// for, to about three significant digits; "∞" for an unbounded one.
func TimeUS(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "∞"
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 1:
		return threeDigits(v*1e3) + " ns"
	case a < 1e3:
		return threeDigits(v) + " µs"
	case a < 1e6:
		return threeDigits(v/1e3) + " ms"
	default:
		return threeDigits(v/1e6) + " s"
	}
}

// Ratio prints a ratio to about three significant digits; "∞" for an
// unbounded one.
func Ratio(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "∞"
	}
	return threeDigits(v)
}

// threeDigits prints v with about three significant digits.
func threeDigits(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// List joins items as a sentence lists them: "a", "a and b",
// "a, b and c", with conj ("and", "or") before the last.
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Plural is "1 process" or "k processes".
func Plural(k int, one, many string) string {
	if k == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", k, many)
}

// bounded is true for an interval with both bounds.
func bounded(low, high float64) bool {
	return !math.IsNaN(low) && !math.IsNaN(high) && !math.IsInf(high, 0)
}

// Figure is a figure in µs with its interval and the processes behind
// it, e.g. "41.6 µs [39.0 µs, 44.1 µs] (10 processes)", or "41.6 µs (3
// processes, not judged)" where it has no interval.
func Figure(center, low, high float64, processes int) string {
	if !bounded(low, high) {
		return fmt.Sprintf("%s (%s, not judged)", TimeUS(center), Plural(processes, "process", "processes"))
	}
	return fmt.Sprintf("%s [%s, %s] (%s)", TimeUS(center), TimeUS(low), TimeUS(high), Plural(processes, "process", "processes"))
}

// Estimate is a stats estimate in µs as Figure prints it; "n/a" for none.
func Estimate(e *stats.Estimate) string {
	if e == nil {
		return "n/a"
	}
	return Figure(e.Center, e.Low, e.High, e.Processes)
}

// RatioInterval is a ratio's interval, "[lo, hi]", or "(no interval)".
func RatioInterval(low, high float64) string {
	if math.IsInf(high, 0) || math.IsNaN(low) || math.IsNaN(high) {
		return "(no interval)"
	}
	return "[" + Ratio(low) + ", " + Ratio(high) + "]"
}

// BusyEvidence is the busy flag with the evidence behind it, as reports
// and warnings print it: "busy throughout: others' work took 82% of wall
// time", "busy: figure rises with load (ρ = 0.64, p = 2.1e-07,
// most-loaded half 1.45× the least)", both joined, or "" for a cell that
// is not busy.
func BusyEvidence(l stats.Load) string {
	rises := fmt.Sprintf("figure rises with load (%s)", LoadEffect(l))
	switch {
	case l.Throughout && l.Rises:
		return fmt.Sprintf("busy throughout: others' work took %.0f%% of wall time, and its %s", 100*l.OthersShare, rises)
	case l.Throughout:
		return fmt.Sprintf("busy throughout: others' work took %.0f%% of wall time", 100*l.OthersShare)
	case l.Rises:
		return "busy: " + rises
	}
	return ""
}

// LoadEffect is the busy rule's effect test in numbers, "ρ = 0.64, p =
// 2.1e-07, most-loaded half 1.45× the least", or "" when it was not made.
func LoadEffect(l stats.Load) string {
	if l.Tested == 0 {
		return ""
	}
	return fmt.Sprintf("ρ = %.2f, p = %.2g, most-loaded half %s× the least", l.Rho, l.P, Ratio(l.Ratio))
}

// CPUs spells a pinning: "0,2,3", or "none".
func CPUs(cpus []int) string {
	if len(cpus) == 0 {
		return "none"
	}
	s := ""
	for i, c := range slices.Sorted(slices.Values(cpus)) {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(c)
	}
	return s
}
