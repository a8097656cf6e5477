package render

import (
	"spawnbench/internal/fulltest"
	"strings"
	"sync"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// referenceReport is the committed reference set's report and its
// Markdown, rendered once.
func referenceReport(t *testing.T) (*report.Report, string) {
	t.Helper()
	fulltest.Only(t, "reads a committed result set whole and builds its report")
	r := reporttest.ReferenceReport(t)
	referenceMarkdown.once.Do(func() {
		var b strings.Builder
		referenceMarkdown.err = Write(r, &b, FormatMarkdown, nil)
		referenceMarkdown.md = b.String()
	})
	if referenceMarkdown.err != nil {
		t.Fatal(referenceMarkdown.err)
	}
	return r, referenceMarkdown.md
}

var referenceMarkdown struct {
	once sync.Once
	md   string
	err  error
}

// tableRows are the body rows of the first Markdown table after heading,
// each split into its cells.
func tableRows(t *testing.T, md, heading string) [][]string {
	t.Helper()
	i := strings.Index(md, "\n"+heading)
	if i < 0 {
		t.Fatalf("no section %q", heading)
	}
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(md[i+1:], "\n")[1:] {
		switch {
		case strings.HasPrefix(line, "|"):
			if inTable || strings.HasPrefix(line, "| ---") {
				if !strings.HasPrefix(line, "| ---") {
					cells := strings.Split(strings.Trim(line, "|"), " | ")
					for k := range cells {
						cells[k] = strings.TrimSpace(cells[k])
					}
					rows = append(rows, cells)
				}
			}
			inTable = true
		case inTable:
			return rows
		}
	}
	return rows
}

func TestReferenceBottomLineComesFirst(t *testing.T) {
	t.Parallel()
	r, md := referenceReport(t)
	lines := strings.Split(md, "\n")
	at := -1
	for i, l := range lines {
		if l == "## Bottom line" {
			at = i
			break
		}
	}
	if at < 0 || at > 10 {
		t.Fatalf("the bottom line starts at line %d, want within the first lines", at+1)
	}
	rows := tableRows(t, md, "## Bottom line")
	if len(rows) < 6 || rows[0][0] != hostfacts.Native {
		t.Fatalf("bottom line rows %v, want native first and a row per host family", rows)
	}
	if end := at + len(rows) + 6; end > 60 {
		t.Errorf("the bottom line's table ends at line %d, want within the first 60", end)
	}
	families := map[string]bool{}
	for _, row := range rows {
		families[row[0]] = true
	}
	for _, f := range []string{hostfacts.Native, hostfacts.Wasmtime, hostfacts.WAMR, hostfacts.JSHosts, hostfacts.Emscripten, hostfacts.RawWorkers} {
		if !families[f] {
			t.Errorf("the bottom line has no %s row", f)
		}
	}
	// Every claim of the earlier study is set beside what this set measured.
	claims := tableRows(t, md, "### The earlier study's claims, checked")
	if len(claims) != len(report.Earlier.Claims) {
		t.Errorf("%d claims checked, want all %d", len(claims), len(report.Earlier.Claims))
	}
	for _, c := range claims {
		if c[3] == "" || c[4] == "" || strings.Contains(c[4], "not measured") {
			t.Errorf("claim %s: measured %q, verdict %q", c[0], c[3], c[4])
		}
	}
	if r.BottomLine == nil || len(r.BottomLine.Claims) != len(report.Earlier.Claims) || len(r.BottomLine.Earlier) < 6 {
		t.Errorf("the JSON bottom line lacks its claims or the earlier table: %+v", r.BottomLine)
	}
}

// TestReferenceRatiosCarryTheirOwnFlags: on the reference set, a ratio
// is flagged unstable only where its own cell is.
func TestReferenceRatiosCarryTheirOwnFlags(t *testing.T) {
	t.Parallel()
	r, md := referenceReport(t)
	// A ratio carries its own cell's flag, never only its baseline's.
	rows := tableRows(t, md, "## Ratio to native")
	for _, row := range rows {
		if len(row) < 2+len(r.Columns) || strings.HasPrefix(row[0], "**") {
			continue
		}
		for k, col := range r.Columns {
			text := row[2+k]
			c := r.Cell(row[0], row[1], col)
			if strings.Contains(text, "unstable") && (c == nil || !c.Judgement.Unstable) {
				t.Errorf("%s %s %s: ratio %q flagged unstable, its own cell is %v", row[0], row[1], columnLabel(col), text, c.Judgement.Verdict)
			}
		}
	}
}

func TestEveryFewProcessCellSaysNotJudged(t *testing.T) {
	t.Parallel()
	r, md := referenceReport(t)
	few := 0
	for _, c := range r.Cells {
		if c.Stats == nil || c.Stats.Processes >= report.MinIntervalProcesses {
			continue
		}
		few++
		if c.Judgement.Verdict != report.NotJudged || !strings.Contains(flags(&c), "not judged") {
			t.Errorf("%s: %d processes, verdict %q, flags %q", cellName(c.ID()), c.Stats.Processes, c.Judgement.Verdict, flags(&c))
		}
	}
	if few == 0 {
		t.Fatal("the reference set has no cell of fewer than 5 processes: the test checks nothing")
	}
	// In every table that prints a figure for such a cell, its text says
	// so: the means, the typical times, the ratios.
	for _, heading := range []string{"### Mean spawn time", "## Ratio to native"} {
		for _, row := range tableRows(t, md, heading) {
			if len(row) < 2+len(r.Columns) || strings.HasPrefix(row[0], "**") {
				continue
			}
			for k, col := range r.Columns {
				c := r.Cell(row[0], row[1], col)
				if c == nil || c.Stats == nil || c.Stats.Processes >= report.MinIntervalProcesses || row[2+k] == "n/a" {
					continue
				}
				if !strings.Contains(row[2+k], "not judged") {
					t.Errorf("%s: %s %s %s reads %q, without \"not judged\"", heading, row[0], row[1], columnLabel(col), row[2+k])
				}
			}
		}
	}
	for _, row := range tableRows(t, md, "## Typical spawn time") {
		if len(row) == 8 && !strings.HasPrefix(row[0], "**") && strings.Contains(row[5], "not judged") != strings.Contains(row[7], "not judged") {
			t.Errorf("typical-time row %v: its interval and verdict disagree on being judged", row)
		}
	}
}
