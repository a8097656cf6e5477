package render

import (
	"strings"

	"spawnbench/engine/report"
)

// writeAppendix renders what a reader looks up rather than reads: the
// pooled means (the earlier study's statistic), the clock calibration and
// the provenance of every invocation, toolchains once.
func writeAppendix(r *report.Report, b *strings.Builder) {
	b.WriteString("## Appendix\n\n")
	if len(r.Cells) > 0 {
		writeMeans(r, b)
	}
	writeCalibration(r, b)
	writeProvenance(b, r.Sources)
}
