package report

import (
	"fmt"
	"os"
	"path/filepath"

	"spawnbench/engine/results"
)

// Names WriteDir uses inside a result directory.
const (
	ReportFile = "report.md"
	PlotsDir   = "plots"
)

// WriteDir writes report.md and the plots (under plots/) for set into its
// result directory dir. The runner calls it when a run finishes.
func WriteDir(dir string, set *results.Set) error {
	r, err := Build([]Input{{Dir: dir, Set: set}}, Options{})
	if err != nil {
		return fmt.Errorf("report for %s: %w", dir, err)
	}
	plots, err := r.WritePlots(filepath.Join(dir, PlotsDir))
	if err != nil {
		return fmt.Errorf("report for %s: %w", dir, err)
	}
	for i := range plots {
		plots[i].Path = PlotsDir + "/" + plots[i].Path
	}
	f, err := os.CreateTemp(dir, "."+ReportFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", ReportFile, err)
	}
	err = r.Write(f, FormatMarkdown, plots)
	if err == nil {
		// CreateTemp makes the file private; a report is for everyone
		// who can read the results beside it.
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Renamed into place so a reader never sees half a report.
		err = os.Rename(f.Name(), filepath.Join(dir, ReportFile))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Join(dir, ReportFile), err)
	}
	return nil
}
