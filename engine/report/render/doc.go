// Package render writes what engine/report computed: a Report as Markdown,
// CSV, JSON, benchstat's format, Parquet (cells.parquet) and plots, and a
// Comparison as Markdown, CSV and JSON.
//
// This package only words and formats. Every figure, interval, verdict,
// ratio, count, note and plot line it prints is a field of the model,
// computed by report.Build or report.Compare; a renderer picks, orders
// and words them, in the words of engine/textfmt, and computes nothing a
// reader would quote. Every sentence is here, one file per section of the
// report (markdown.go lays them out). The compiler holds the split: render
// imports report, and report cannot import render. The plots are the one
// place that reads samples (Report.Groups), since a distribution is drawn
// from what was measured; the lines over them are the model's. Markdown is for people, CSV and Parquet give one row per
// cell for spreadsheets and notebooks, JSON holds everything, benchfmt is
// for benchstat. Every file is written through engine/atomicfile.
package render
