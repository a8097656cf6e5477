package render

import (
	"fmt"
	"io"
	"path/filepath"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// Names WriteDir uses inside a result directory.
const (
	ReportFile = "report.md"
	PlotsDir   = "plots"
)

// WriteDir writes report.md and the plots (under plots/) for set into its
// result directory dir. The runner calls it when a run finishes.
func WriteDir(dir string, set *results.Set) (*report.Report, error) {
	return WriteDirNamed(dir, dir, set)
}

// WriteDirNamed is WriteDir into dir for a set the report calls name (a
// merge writes into a hidden directory that becomes name).
func WriteDirNamed(dir, name string, set *results.Set) (*report.Report, error) {
	r, err := writeCells(dir, name, set)
	if err != nil {
		return nil, err
	}
	plots, err := WritePlots(r, filepath.Join(dir, PlotsDir))
	if err != nil {
		return nil, fmt.Errorf("report for %s: %w", dir, err)
	}
	for i := range plots {
		plots[i].Path = PlotsDir + "/" + plots[i].Path
	}
	if err := atomicfile.Write(filepath.Join(dir, ReportFile), func(w io.Writer) error {
		return Write(r, w, FormatMarkdown, plots)
	}); err != nil {
		return nil, fmt.Errorf("report for %s: %w", dir, err)
	}
	return r, nil
}

// writeCells is WriteDirNamed's data: the report of set, whose cell
// figures it writes into dir's cells.parquet.
func writeCells(dir, name string, set *results.Set) (*report.Report, error) {
	r, err := report.Build([]report.Input{{Dir: name, Set: set}}, report.Options{})
	if err != nil {
		return nil, fmt.Errorf("report for %s: %w", dir, err)
	}
	if err := results.WriteCells(dir, set, cellFigures(r)); err != nil {
		return nil, fmt.Errorf("report for %s: %w", dir, err)
	}
	return r, nil
}
