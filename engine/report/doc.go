// Package report turns spawnbench result sets into tables, comparisons and
// plots.
//
// This package is opinionated. Spawn times are not normally distributed
// (first spawns are slow, schedulers add long tails), so every claim it
// makes about a difference rests on medians, their confidence intervals and
// the Mann-Whitney U test from golang.org/x/perf/benchmath. The mean
// appears only in the classic table (and the CSV and JSON beside it),
// because the earlier study reported means and readers compare against
// it. Nothing is hidden: a cell with failed processes says so next to its
// number, a clock that failed its calibration is announced above every
// table, and its numbers carry a mark rather than being dropped. Warm-up
// spawns never enter any statistic.
package report
