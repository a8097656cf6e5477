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

// Typical is one process's typical value, as every report reduces a
// process: the TrimFraction trimmed mean of its spawn times (NaN for
// none). values are not modified.
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
