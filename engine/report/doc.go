// Package report turns spawnbench result sets into tables, comparisons and
// plots.
//
// This package is opinionated. Spawn times are not normally distributed
// (first spawns are slow, schedulers add long tails), so every claim it
// makes about a difference rests on medians, their confidence intervals and
// the Mann-Whitney U test from golang.org/x/perf/benchmath, and there is
// one median (results.Median, benchmath's) and one quantile (Quantile, the
// same definition) everywhere. The mean appears only in the classic table
// (and the CSV and JSON beside it), because the earlier study reported
// means and readers compare against it.
//
// Nothing is hidden, and nothing is counted that should not be. Means,
// medians and counts use spawns of processes that ended ok; a cell whose
// processes all failed shows their status instead of a number. A set
// holding one (environment, mode, n, process, thread) twice is refused. A
// clock that failed its calibration is announced above every table and
// its numbers carry a mark. Cells measured on a busy machine, or whose
// processes disagree, are flagged busy or unstable (see Noise). A set
// that is less than its invocations planned says so first. Warm-up spawns
// never enter any statistic.
//
// A machine is a dimension, never a pool: a set measured on several
// machines (spawnbench merge) is reported machine by machine (machines.go),
// every ratio divides by the baseline measured on the same machine, and a
// machine × environment table sets those ratios side by side. Compare
// matches cells on their machine and warns when the sets' machines differ.
//
// As in benchstat, the model and its renderers are kept apart: Build and
// Compare compute a Report or a Comparison (cells, statistics, ratios,
// flags; model.go, compare_model.go, noise.go, family.go and the files
// they call) without writing anything, and the render_*.go files and
// plot.go turn them into Markdown, CSV, JSON, benchstat's format and
// plots. Every file is written through engine/atomicfile.
package report
