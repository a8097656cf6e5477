package report

import (
	"golang.org/x/perf/benchmath"

	"spawnbench/engine/stats"
)

// Quantile is stats.Quantile: the one quantile of every table, plot and
// flag.
func Quantile(values []float64, q float64) float64 { return stats.Quantile(values, q) }

// sortedQuantile is Quantile of values already in ascending order.
func sortedQuantile(sorted []float64, q float64) float64 { return stats.SortedQuantile(sorted, q) }

// medianSummary is benchmath's median with its distribution-free
// confidence interval, of values in ascending order.
func medianSummary(sorted []float64, confidence float64) benchmath.Summary {
	smp := &benchmath.Sample{Values: sorted, Thresholds: &benchmath.DefaultThresholds}
	return benchmath.AssumeNothing.Summary(smp, confidence)
}
