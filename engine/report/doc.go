// Package report computes, from spawnbench result sets, what a report
// and a comparison say: cells, figures, intervals, verdicts with their
// evidence, ratios, counts, notes and plot lines, as numbers and kinds.
// It writes no sentence: a verdict is a kind with the numbers behind it,
// a note or a warning a kind with what it is about, and every word is
// render's. Its only formatted strings are error messages.
//
// This package is opinionated. The process, not the spawn, is the unit
// of replication: spawns of one process are correlated, so every figure,
// interval, ratio and test is computed over processes (estimate.go). Each
// process is reduced to the 20% trimmed mean of its spawns; a cell's
// figure is the 20% trimmed mean of their logarithms with Yuen's
// interval; ratios and compare use the Yuen–Welch interval and test of
// two such means, so a change is significant exactly when its interval
// excludes zero. Trimmed means, because a median jumps between regimes
// when their shares move by a few percent; logarithms, because spawn
// times are multiplicative. The pooled mean appears in the classic table
// (and the CSV and JSON beside it) because the earlier study reported
// means and readers compare against it; the pooled median is printed for
// reference, without an interval. There is one quantile everywhere
// (stats.Quantile, Hyndman and Fan's definition 8, as benchmath's median).
//
// Nothing is hidden, and nothing is counted that should not be. Means,
// medians and counts use spawns of processes that ended ok; a cell whose
// processes all failed shows their status instead of a number. A set
// holding one (environment, mode, n, process, thread) twice is refused. A
// clock that failed its calibration is announced above every table and
// its numbers carry a mark. Every cell's load is a number (others' CPU and
// steal over its wall time) and every cell gets a verdict (see Judgement):
// busy (its processes say the load moved its figure), unstable (its
// processes drifted or fall into clusters), or not judged (too few
// processes for an interval). A set
// that is less than its invocations planned says so first. Warm-up spawns
// never enter any statistic.
//
// A machine is a dimension, never a pool: a set measured on several
// machines (spawnbench merge) is reported machine by machine (machines.go),
// every ratio divides by the baseline measured on the same machine, and a
// machine × environment table sets those ratios side by side. Compare
// matches cells on their machine and warns when the sets' machines differ.
//
// As in benchstat, the model and its renderers are kept apart, and the
// compiler holds the split: Build and Compare compute a Report or a
// Comparison (cells, statistics, ratios, flags; model.go,
// compare_model.go, family.go and the files they call) without writing
// anything, and package engine/report/render, which imports this one and
// which this one cannot import, turns them into Markdown, CSV, JSON,
// benchstat's format, Parquet and plots. A section of the report has a
// file of the same name in each: what it computes here, how it reads
// there. The JSON is this package's types as they are. The report computes no statistic
// of its own: every estimator, the reduction of a process included, is
// engine/stats', and each process's all-spawns figure is the one its
// result set stores.
package report
