package render

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeToolReleases renders the Emscripten, Node.js and Firefox releases
// side by side: each environment in its newer releases beside itself in
// the older, cell by cell, with the ratio between them.
func writeToolReleases(r *report.Report, b *strings.Builder) {
	if len(r.ToolReleases) == 0 {
		return
	}
	b.WriteString("## Spawn cost by Emscripten, Node.js and Firefox release\n\n")
	header := []string{"Releases", "Environment", "Older", "Mode", "n", "Typical", "95% CI", "Older's typical", "95% CI", "÷ older"}
	var rows [][]string
	for _, q := range r.ToolReleases {
		var changes []string
		for _, c := range q.Changes {
			changes = append(changes, fmt.Sprintf("%s %s → %s", c.Tool, c.Older, c.Newer))
		}
		e, o := &q.Estimate, &q.OlderEstimate
		rows = append(rows, []string{strings.Join(changes, ", "), q.Environment, q.Older, q.Mode, strconv.Itoa(int(q.N)),
			textfmt.TimeUS(float64(e.TypicalUS)) + flagText(q.Judgement, e.Processes),
			formatInterval(float64(e.LowUS), float64(e.HighUS), textfmt.TimeUS),
			textfmt.TimeUS(float64(o.TypicalUS)),
			formatInterval(float64(o.LowUS), float64(o.HighUS), textfmt.TimeUS),
			textfmt.Ratio(float64(q.Ratio.Ratio)) + "× " + ratioInterval(&q.Ratio)})
	}
	mdTable(b, header, "llllr", rows)
	fmt.Fprintf(b, "Each environment beside itself in older releases: the two differ only in where their tools come from "+
		"(the toolchain root, and the commands and flags that go with it), so their settings are otherwise the same. "+
		"The releases are the versions each run recorded for the environment's tools, not read from its name. "+
		"Typical and its %.0f%% interval are over processes, as in the table above; ÷ older divides the newer's figure by the older's "+
		"in the same mode and n, with the Yuen–Welch interval over both cells' processes.\n\n", 100*r.Confidence)
}
