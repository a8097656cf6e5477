// Package stats holds every estimator and verdict of spawnbench: how a
// process becomes one number, how a cell's processes become a figure
// with an interval, how two cells become a ratio or a test, and when a
// cell's processes say the figure cannot be trusted. Plain numbers and
// start times go in; estimates and verdicts come out; nothing here reads
// a file or prints.
//
// This package is opinionated. The process, not the spawn, is the unit
// of replication: spawns of one process share its heap, its threads'
// placement and its runtime's warm state, so they are correlated, and an
// interval over pooled spawns claims a certainty a cell does not have.
// So:
//
//   - a process is its typical spawn, the 20% trimmed mean of its spawn
//     times, and its spawn variance, that of their logarithms
//     (ReduceSpawns: once per process when its result set is written,
//     and for each view a report takes);
//   - a cell's figure is the 20% trimmed mean of the logarithms of its
//     process summaries, exponentiated, with Yuen's interval over
//     processes (Summarize);
//   - a ratio is the difference of two such log means with the
//     Yuen–Welch interval, and the test of two cells is the same
//     Yuen–Welch test, so "significant" and "the ratio's interval
//     excludes 1" always agree (Ratio, Test);
//   - a cell is judged only from evidence at the level of processes: its
//     process summaries drift over the run, or they fall into separate
//     clusters (Judge); a baseline of two clusters is divided by its
//     lower one, whose figure does not move with their shares (Divisor). No test here treats the spawns of one process as
//     independent; precision is a number, never a verdict.
//
// Trimmed means, not medians: a cell whose processes fall into two
// regimes has a median on a knife edge that jumps between them when their
// shares move by a few percent; a trimmed mean moves with the shares.
// Logarithms, because spawn times are multiplicative and the question is
// a ratio. There is one quantile everywhere (Quantile, Hyndman and Fan's
// definition 8, as benchmath's median), and so one median; where values
// may be zero or negative (the parts of a spawn, two clocks apart), a
// median over processes with its order-statistics interval
// (MedianInterval) stands in for the log-scale figure. Descriptions
// that are not estimates live here too (the pooled mean, median and 95th
// percentile, a spread, the regimes of a cell's spawns, how compare's
// changes moved together): whoever prints a number computes none.
package stats
