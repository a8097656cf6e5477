package stats

import (
	"fmt"
	"math"
	"strconv"
)

// The words and numbers an estimate is printed with, shared by the
// reports and the runner's progress lines, so a figure reads the same
// wherever it appears.

// FormatUS prints a time given in microseconds in the unit its size
// calls for (ns, µs, ms or s), to about three significant digits, which
// is more than run-to-run noise allows anyway: people read "15.1 s", not
// "15103775".
func FormatUS(v float64) string {
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

// FormatRatio prints a ratio to about three significant digits.
func FormatRatio(v float64) string {
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

// Plural is "1 process" or "k processes".
func Plural(k int, one, many string) string {
	if k == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", k, many)
}

// Text is an estimate in µs with its interval and the processes behind
// it, e.g. "41.6 µs [39.0 µs, 44.1 µs] (10 processes)", or
// "41.6 µs (3 processes, not judged)" without an interval.
func (e *Estimate) Text() string {
	if e == nil {
		return "n/a"
	}
	if !e.Bounded() {
		return fmt.Sprintf("%s (%s, not judged)", FormatUS(e.Center), Plural(e.Processes, "process", "processes"))
	}
	return fmt.Sprintf("%s [%s, %s] (%s)", FormatUS(e.Center), FormatUS(e.Low), FormatUS(e.High), Plural(e.Processes, "process", "processes"))
}
