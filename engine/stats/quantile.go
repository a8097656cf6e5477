package stats

import (
	"math"
	"slices"

	mstats "github.com/aclements/go-moremath/stats"
)

// Quantile is the q-quantile of values, Hyndman and Fan's definition 8
// (interpolating, so an even-sized sample's median is the mean of its two
// middle values; benchmath's median is the same number): the one quantile
// of every table, plot and rule. NaN for no values. values need not be
// sorted and are not modified.
func Quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return SortedQuantile(sorted, q)
}

// SortedQuantile is Quantile of values already in ascending order.
func SortedQuantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return mstats.Sample{Xs: sorted, Sorted: true}.Quantile(q)
}

// Median is Quantile(values, 0.5).
func Median(values []float64) float64 { return Quantile(values, 0.5) }

// Typical is the TrimFraction trimmed mean of values (NaN for none): a
// process's typical spawn, as ReduceSpawns reduces it. values are not
// modified.
func Typical(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return trimmedMeanSorted(sorted)
}

// trimmedMeanSorted is the TrimFraction trimmed mean of sorted values.
func trimmedMeanSorted(sorted []float64) float64 {
	return trimmedMeanG(sorted, int(math.Floor(TrimFraction*float64(len(sorted)))))
}

func trimmedMeanG(sorted []float64, g int) float64 {
	kept := sorted[g : len(sorted)-g]
	if len(kept) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, v := range kept {
		sum += v
	}
	return sum / float64(len(kept))
}

// Mean is the arithmetic mean of values (NaN for none).
func Mean(values []float64) float64 { return mstats.Mean(values) }

// Pooled describes values pooled over a cell's processes (every spawn of
// its ok processes): their mean, the earlier study's statistic, their
// median and their 95th percentile. Descriptions, with no interval:
// pooled spawns are not independent.
type Pooled struct {
	Mean, Median, P95 float64
}

// Pool describes values (NaN for none); values are not modified.
func Pool(values []float64) Pooled {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return Pooled{Mean: Mean(sorted), Median: SortedQuantile(sorted, 0.5), P95: SortedQuantile(sorted, 0.95)}
}

// RelativeIQR is the interquartile range of values over their median: a
// description of their spread, 0 where the median is not positive (or
// there are no values). values are not modified.
func RelativeIQR(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	mid := SortedQuantile(sorted, 0.5)
	if !(mid > 0) {
		return 0
	}
	return (SortedQuantile(sorted, 0.75) - SortedQuantile(sorted, 0.25)) / mid
}

// RollingMedian replaces each value by the median of it and its
// neighbours within a tenth of its index on each side, at most k: on a
// logarithmic axis of the index the window has about the same width
// everywhere, so the first values (index < 10) are never averaged away.
func RollingMedian(values []float64, k int) []float64 {
	if k == 0 {
		return values
	}
	out := make([]float64, len(values))
	for i := range values {
		w := min(k, i/10)
		lo, hi := max(0, i-w), min(len(values), i+w+1)
		out[i] = Median(values[lo:hi])
	}
	return out
}
