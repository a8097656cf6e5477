package render

import (
	"fmt"
	"io"
	"strings"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
)

// mdTable writes a Markdown table. align has one letter per column: 'l'
// for text, 'r' for numbers; columns past its end are numbers.
func mdTable(b *strings.Builder, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < len(align) && align[i] == 'l' {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// mdEscape keeps free text (error tails, details) inside one table cell.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func writeReportMarkdown(r *report.Report, w io.Writer, plots []Plot) error {
	var b strings.Builder
	if len(r.Machines) > 0 {
		if err := writeMarkdownPerMachine(r, &b, plots); err != nil {
			return err
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("# spawnbench report\n\n")
	writeHeader(&b, r.Sources)
	writeIncomplete(&b, r.Incomplete)
	writeBusyWarning(&b, r.Cells)
	writeClockWarnings(r, &b)

	if len(r.Cells) == 0 {
		b.WriteString("No spawns were measured in this result set.\n\n")
		writeAppendix(r, &b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	writeBottomLine(r, &b)
	writeAnatomy(r, &b, plots)
	writeTypical(r, &b)
	writeReportRatios(r, &b)
	writeAgainst(r, &b)
	writeVariance(r, &b)
	writeRegimes(r, &b)
	writeClusters(r, &b)
	writeLoad(r, &b)
	writePlacement(r, &b)
	writeParallel(r, &b)
	writeReleases(r, &b, plots)
	writeToolReleases(r, &b)
	writeFailures(r, &b)
	writePlots(r, &b, plots)
	writeAppendix(r, &b)
	writeNotes(&b, warningTexts(r.Warnings))
	_, err := io.WriteString(w, b.String())
	return err
}

// grouped is true when the environments span more than one host family,
// so that tables put a heading row above each family.
func grouped(r *report.Report) bool {
	seen := map[string]bool{}
	for _, env := range r.Environments {
		seen[r.Family(env)] = true
	}
	return len(seen) > 1
}

// familyRow is a table row naming a host family in bold.
func familyRow(family string, width int) []string {
	row := make([]string, width)
	row[0] = "**" + familyLabel(family) + "**"
	return row
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// Sections are the parts of the Markdown report that docs quote by name
// (between <!-- spawnbench ... --> markers, regenerated from a committed
// set by the docs test): the bottom line's table and notes, the earlier
// study's claims, its table beside the set's, and where the time goes
// (a set with traced twins).
var Sections = []string{"bottom-line", "claims", "earlier-table", "anatomy"}

// WriteSection writes one of Sections, without its heading.
func WriteSection(r *report.Report, w io.Writer, name string) error {
	var b strings.Builder
	switch name {
	case "anatomy":
		if r.Anatomy == nil || r.BottomLine == nil {
			return &inputerr.Error{Msg: "the set has no anatomy: none of its bottom line's environments was traced (the spec's anatomy block)"}
		}
		var all strings.Builder
		writeAnatomy(r, &all, nil)
		b.WriteString(strings.TrimPrefix(all.String(), "## Where the time goes\n\n"))
	case "bottom-line", "claims", "earlier-table":
		if r.BottomLine == nil {
			return &inputerr.Error{Msg: "the set has no bottom line: it holds no cell of the baseline"}
		}
		var all strings.Builder
		writeBottomLine(r, &all)
		text := all.String()
		cut := func(from, to string) string {
			i := strings.Index(text, from)
			if i < 0 {
				return ""
			}
			rest := text[i+len(from):]
			if j := strings.Index(rest, to); to != "" && j >= 0 {
				rest = rest[:j]
			}
			return strings.TrimLeft(rest, "\n")
		}
		switch name {
		case "bottom-line":
			b.WriteString(cut("## Bottom line\n", "### The earlier study's claims"))
		case "claims":
			b.WriteString(cut("### The earlier study's claims, checked\n", "### The earlier study's table"))
		case "earlier-table":
			b.WriteString(cut("### The earlier study's table beside this set's\n", ""))
		}
	default:
		return &inputerr.Error{Msg: fmt.Sprintf("unknown report section %q: use one of %s", name, strings.Join(Sections, ", "))}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}
