package reporttest

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// reference is the committed reference set's report, built once for the
// tests that read it (none changes it): each build reads and reduces the
// whole set.
var reference struct {
	once   sync.Once
	report *report.Report
	err    error
}

// ReferenceReport is the report of the committed set results/reference.
func ReferenceReport(t *testing.T) *report.Report {
	t.Helper()
	reference.once.Do(func() {
		_, file, _, _ := runtime.Caller(0) // this file: engine/report/reporttest
		set, err := results.Read(filepath.Join(filepath.Dir(file), "..", "..", "..", "results", "reference"))
		if err != nil {
			reference.err = err
			return
		}
		reference.report, reference.err = report.Build([]report.Input{{Dir: "results/reference", Set: set}}, report.Options{})
	})
	if reference.err != nil {
		t.Fatal(reference.err)
	}
	return reference.report
}
