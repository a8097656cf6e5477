package render

import (
	"io"
	"strconv"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// csvFloat leaves absent values empty and spells unbounded ones +Inf, which
// pandas and spreadsheets both read.
func csvFloat(v report.Float) string {
	return strconv.FormatFloat(float64(v), 'g', -1, 64)
}

// writeCSV writes one row per measured cell and view: cells.parquet as
// text, its columns under its names, so a spreadsheet and a notebook read
// one vocabulary.
func writeReportCSV(r *report.Report, w io.Writer) error {
	return results.EncodeCellsCSV(w, cellFigures(r))
}
