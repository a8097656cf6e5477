package render

import (
	"encoding/json"
	"fmt"
	"io"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// Formats a report or comparison can be written in.
const (
	FormatMarkdown = "md"
	FormatCSV      = "csv"
	FormatJSON     = "json"
	// FormatParquet is cells.parquet's table: one row per cell and view
	// with the figures, intervals, verdicts and ratios (results.CellFigure).
	FormatParquet = "parquet"
)

// CheckFormat rejects a format name Write does not know.
func CheckFormat(format string) error {
	switch format {
	case FormatMarkdown, FormatCSV, FormatJSON, FormatBenchfmt, FormatParquet:
		return nil
	}
	return &inputerr.Error{Msg: fmt.Sprintf("unknown format %q: use md, csv, json, benchfmt or parquet", format)}
}

// untrustedMark follows every number that includes samples whose clock
// was flagged.
const untrustedMark = "†"

// Plot is a plot file a Markdown report links to.
type Plot struct {
	Title string `json:"title"`
	Path  string `json:"path"`
}

// Write renders r in format: Markdown for people, CSV with one row per
// cell for spreadsheets, JSON with everything, benchfmt for benchstat,
// Parquet with one row per cell for notebooks.
func Write(r *report.Report, w io.Writer, format string, plots []Plot) error {
	switch format {
	case FormatMarkdown:
		return writeReportMarkdown(r, w, plots)
	case FormatCSV:
		return writeReportCSV(r, w)
	case FormatBenchfmt:
		return writeBenchfmt(r, w)
	case FormatParquet:
		return results.EncodeCells(w, cellFigures(r))
	case FormatJSON:
		return writeJSON(w, struct {
			*report.Report
			Plots []Plot `json:"plots,omitempty"`
		}{r, plots})
	}
	return CheckFormat(format)
}

// WriteSetCells writes r's cells.parquet table for the one set it was
// built from, stamped as the set's own cells.parquet is (its ID,
// generation and provenance), so that a report of one set writes the
// file its run wrote.
func WriteSetCells(r *report.Report, set *results.Set, w io.Writer) error {
	return results.EncodeSetCells(w, set, cellFigures(r))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// CheckCompareFormat rejects a format WriteComparison does not know.
// benchstat compares two benchfmt files itself.
func CheckCompareFormat(format string) error {
	if format == FormatParquet {
		return &inputerr.Error{Msg: "compare has no parquet output: write each set's cells with `spawnbench report DIR --format parquet -o DIR.parquet`, or use --format csv or json"}
	}
	if format == FormatBenchfmt {
		return &inputerr.Error{Msg: "compare has no benchfmt output: write each set with `spawnbench report DIR --format benchfmt -o DIR.txt` and run `benchstat old.txt new.txt`"}
	}
	return CheckFormat(format)
}
