package stats

import (
	"math"
	"slices"

	mstats "github.com/aclements/go-moremath/stats"
)

// A cell's spawns often fall into regimes: native sequential spawns take
// about 11 µs when the child runs on its parent's CPU and about 32 µs
// when it must wake the other one, and a process may switch between the
// two for hundreds of spawns. Modes finds them: the modes of a kernel
// density estimate of the log spawn times, split at the valleys between
// them. Two neighbouring modes count as two only when they sit
// ModeMinRatio or more apart and the valley between them is at most
// ModeValley of the lower peak; a mode holding less than ModeMinShare of
// the spawns is no regime of its own and merges into its neighbour (a
// tail bump of 0.1% does not veto a 73/27 split). Those bounds keep the
// ordinary right-skewed tail of one regime from reading as a second.
const (
	ModeMinShare = 0.10
	ModeValley   = 0.5
	// modeMinValues is the fewest values worth looking at.
	modeMinValues = 50
	modeGrid      = 256
)

// Modes returns the cut points between the regimes of logs (log spawn
// times), lowest first: a value v belongs to regime k when cuts[k-1] <=
// v < cuts[k]. Nil when the values form one regime, or are too few to
// tell.
func Modes(logs []float64) []float64 {
	if len(logs) < modeMinValues {
		return nil
	}
	sorted := slices.Clone(logs)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if hi-lo < math.Log(ModeMinRatio) {
		return nil
	}
	sample := mstats.Sample{Xs: sorted, Sorted: true}
	bw := mstats.BandwidthSilverman(sample)
	if !(bw > 0) {
		return nil
	}
	xs := make([]float64, modeGrid)
	ys := make([]float64, modeGrid)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(modeGrid-1)
		ys[i] = gaussianDensity(sorted, bw, xs[i])
	}
	var peaks []int
	for i := 1; i < modeGrid-1; i++ {
		if ys[i] > ys[i-1] && ys[i] >= ys[i+1] {
			peaks = append(peaks, i)
		}
	}
	valley := func(a, b int) int {
		v := a
		for i := a; i <= b; i++ {
			if ys[i] < ys[v] {
				v = i
			}
		}
		return v
	}
	share := func(a, b float64) float64 { // share of logs in [a, b)
		i, _ := slices.BinarySearch(sorted, a)
		j, _ := slices.BinarySearch(sorted, b)
		return float64(j-i) / float64(len(sorted))
	}
	// First merge modes too close or too shallowly separated (each time
	// the lower peak of the first such pair goes), then drop the smallest
	// mode while one holds less than ModeMinShare: without its peak, its
	// values fall to the neighbour across its higher valley, the one it
	// is least separated from.
	for len(peaks) >= 2 {
		bad := -1
		for k := 0; k+1 < len(peaks); k++ {
			a, b := peaks[k], peaks[k+1]
			if xs[b]-xs[a] < math.Log(ModeMinRatio) || ys[valley(a, b)] > ModeValley*min(ys[a], ys[b]) {
				bad = k
				break
			}
		}
		if bad < 0 {
			break
		}
		if ys[peaks[bad]] < ys[peaks[bad+1]] {
			peaks = slices.Delete(peaks, bad, bad+1)
		} else {
			peaks = slices.Delete(peaks, bad+1, bad+2)
		}
	}
	for len(peaks) >= 2 {
		bounds := []float64{math.Inf(-1)}
		for k := 0; k+1 < len(peaks); k++ {
			bounds = append(bounds, xs[valley(peaks[k], peaks[k+1])])
		}
		bounds = append(bounds, math.Inf(1))
		small, least := -1, ModeMinShare
		for k := range peaks {
			if s := share(bounds[k], bounds[k+1]); s < least {
				small, least = k, s
			}
		}
		if small < 0 {
			break
		}
		peaks = slices.Delete(peaks, small, small+1)
	}
	if len(peaks) < 2 {
		return nil
	}
	cuts := make([]float64, 0, len(peaks)-1)
	for k := 0; k+1 < len(peaks); k++ {
		cuts = append(cuts, xs[valley(peaks[k], peaks[k+1])])
	}
	return cuts
}

// Regime is one mode of a sample of times: the values assigned to it
// and the range they span.
type Regime struct {
	// From and To bound the values assigned to the regime: the valleys
	// either side of its mode, the sample's extremes at the ends.
	From, To float64
	// Members are the indexes of its values, in the sample's order.
	Members []int
}

// Regimes splits times (any unit; one of zero or less counts as a
// thousandth of the unit, as in every log here) into the regimes of
// their logarithms (Modes), lowest first; nil when they form one regime
// or are too few to tell.
func Regimes(times []float64) []Regime {
	logs := make([]float64, len(times))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range times {
		logs[i] = safeLog(v)
		lo, hi = min(lo, logs[i]), max(hi, logs[i])
	}
	cuts := Modes(logs)
	if cuts == nil {
		return nil
	}
	cuts = append(append([]float64{math.Inf(-1)}, cuts...), math.Inf(1))
	out := make([]Regime, 0, len(cuts)-1)
	for k := 0; k+1 < len(cuts); k++ {
		g := Regime{From: math.Exp(math.Max(cuts[k], lo)), To: math.Exp(math.Min(cuts[k+1], hi))}
		for i, l := range logs {
			if l >= cuts[k] && l < cuts[k+1] {
				g.Members = append(g.Members, i)
			}
		}
		out = append(out, g)
	}
	return out
}

// gaussianDensity is the Gaussian kernel density estimate of sorted at
// x with bandwidth bw, bit for bit what go-moremath's KDE.PDF returns
// (the same terms, added in the same order, over the same count). It
// reads only the values whose term can be nonzero: a value more than
// densityReach bandwidths from x adds an exponential that underflows to
// exactly 0, so leaving it out changes no bit. KDE.PDF builds two
// slices of the whole sample for every point, and the report asks 256
// points of every cell with tens of thousands of spawns; that was a
// fifth of the CPU of engine/report/render's tests, which build reports.
func gaussianDensity(sorted []float64, bw, x float64) float64 {
	a := -1 / (2 * bw * bw)
	b := invSqrt2Pi / bw
	reach := densityReach * bw
	i, _ := slices.BinarySearch(sorted, x-reach)
	sum := 0.0
	for i < len(sorted) {
		xi := sorted[i]
		if xi > x+reach {
			break
		}
		z := x - xi
		// The conversion rounds the product before the sum, as the
		// library's slice does, where a compiler may fuse the two.
		term := float64(math.Exp(z*z*a) * b)
		sum += term
		i++
		// Spawn times repeat (whole nanoseconds, a browser's coarse
		// clock), and equal values are neighbours here: the library adds
		// the same term for each, computed once here.
		for ; i < len(sorted) && sorted[i] == xi; i++ {
			sum += term
		}
	}
	return sum / float64(len(sorted))
}

// densityReach is where the Gaussian kernel's term is exactly 0: past
// it, z²/(2·bw²) exceeds 745.2, and math.Exp of less than -745.14
// underflows to 0. 38.7² / 2 = 748.8 leaves a margin for rounding.
const densityReach = 38.7

// invSqrt2Pi is 1/√(2π), as go-moremath spells it.
const invSqrt2Pi = 0.398942280401432677939946059934381868475858631164934657665925
