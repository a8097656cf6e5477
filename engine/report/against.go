package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// An environment may be set against another of its spec (`against` in
// CUE): one payload against another on the same host, one release
// against the next. The report divides its figures by the other's, cell
// by cell, with the same Yuen–Welch interval over both cells' processes
// as the ratios to the baseline, so what the pairing isolates (the
// payload, the release) is read off one table instead of two columns of
// ratios to native.

// againstOf is each environment's `against`, from the resolved specs of
// the set's invocations (the last one that names it wins).
func againstOf(p *results.Provenance) map[string]string {
	out := map[string]string{}
	for _, inv := range p.Invocations {
		if len(inv.Resolved) == 0 {
			continue
		}
		var spec struct {
			Environments []struct {
				Name    string `json:"name"`
				Against string `json:"against"`
			} `json:"environments"`
		}
		if json.Unmarshal(inv.Resolved, &spec) != nil {
			continue
		}
		for _, e := range spec.Environments {
			if e.Against != "" {
				out[e.Name] = e.Against
			}
		}
	}
	return out
}

// againstRatios divides every cell of an environment that is set against
// another by that one's cell, in spec order.
func againstRatios(r *Report, against map[string]string) []Ratio {
	var out []Ratio
	for _, env := range r.Environments {
		if other := against[env]; other != "" {
			out = append(out, r.cellRatios(env, other)...)
		}
	}
	return out
}

// writeAgainst is the side-by-side table: one row per (environment, mode).
func (r *Report) writeAgainst(b *strings.Builder) {
	if len(r.Against) == 0 {
		return
	}
	fmt.Fprintf(b, "## Side by side (each environment ÷ the one it is set against, over processes)\n\n")
	header := []string{"Environment", "Against", "Mode"}
	for _, col := range r.Columns {
		header = append(header, col.Label())
	}
	type rowKey struct{ env, mode string }
	byRow := map[rowKey]map[Column]*Ratio{}
	var order []rowKey
	for i := range r.Against {
		q := &r.Against[i]
		k := rowKey{q.Environment, q.Mode}
		if byRow[k] == nil {
			byRow[k] = map[Column]*Ratio{}
			order = append(order, k)
		}
		byRow[k][q.Column] = q
	}
	var rows [][]string
	for _, k := range order {
		row := []string{k.env, "", k.mode}
		for _, col := range r.Columns {
			text := "n/a"
			if q := byRow[k][col]; q != nil {
				row[1] = q.Baseline
				text = textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(q) + r.Cell(q.Environment, q.Mode, col).flags()
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	mdTable(b, header, "lll", rows)
	fmt.Fprintf(b, "Each environment declares in its spec what it is set against (`against`). Each ratio's %.0f%% interval is Yuen–Welch's over the two cells' processes. "+
		"Below 1×: faster than the other.\n\n", 100*r.Confidence)
}
