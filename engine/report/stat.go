package report

import (
	"spawnbench/engine/stats"
)

// Quantile is stats.Quantile: the one quantile of every table, plot and
// flag.
func Quantile(values []float64, q float64) float64 { return stats.Quantile(values, q) }

// sortedQuantile is Quantile of values already in ascending order.
func sortedQuantile(sorted []float64, q float64) float64 { return stats.SortedQuantile(sorted, q) }
