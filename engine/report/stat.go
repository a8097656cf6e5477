package report

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// The one median and the one quantile of every spawnbench report, table,
// plot and flag: benchmath's. The median is results.Median (benchmath's
// summary centre, shared with the runner's progress lines and summary);
// benchmath takes it as the 0.5 quantile with Hyndman and Fan's
// definition 8 (interpolating, so an even-sized sample's median is the
// mean of its two middle values), and Quantile uses the same definition,
// so a median printed in a table, drawn in a plot and used for a noise
// flag is the same number.

// Quantile is the q-quantile of values with benchmath's definition; NaN
// for no values. values need not be sorted and are not modified.
func Quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return nan()
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sortedQuantile(sorted, q)
}

// sortedQuantile is Quantile of values already in ascending order.
func sortedQuantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return nan()
	}
	return stats.Sample{Xs: sorted, Sorted: true}.Quantile(q)
}

// medianSummary is benchmath's median with its distribution-free
// confidence interval, of values in ascending order.
func medianSummary(sorted []float64, confidence float64) benchmath.Summary {
	smp := &benchmath.Sample{Values: sorted, Thresholds: &benchmath.DefaultThresholds}
	return benchmath.AssumeNothing.Summary(smp, confidence)
}

func nan() float64 { return math.NaN() }
