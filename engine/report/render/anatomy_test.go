package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/textfmt"
)

// anatomyGolden is the traced set's bottom line (with its sentence on
// where the time goes) and its "Where the time goes" section, as the
// README and the report print them.
const anatomyGolden = "anatomy.md"

// The traced set's bottom line and "Where the time goes" read as their
// golden file (go test ./engine/report/render -run TestAnatomyMatchesItsGolden
// -update rewrites it).
func TestAnatomyMatchesItsGolden(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.TracedSet())
	var b bytes.Buffer
	if err := WriteSection(r, &b, "bottom-line"); err != nil {
		t.Fatal(err)
	}
	var section strings.Builder
	writeAnatomy(r, &section, []Plot{{Title: "Where the time goes", Path: "plots/anatomy.png"}})
	b.WriteString("\n" + section.String())
	golden := filepath.Join("testdata", "golden", anatomyGolden)
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		gl, wl := bytes.Split(b.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s differs from its golden at line %d (regenerate with -update if the change is meant):\n got: %s\nwant: %s", anatomyGolden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs from its golden in length: %d lines, want %d", anatomyGolden, len(gl), len(wl))
	}
}

// The bottom line's sentence names, for each traced row, the largest
// part of each headline figure, and says which made no new OS thread.
func TestAnatomySentenceSaysWhereTheTimeGoes(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.TracedSet())
	s := anatomyText(r)
	for _, want := range []string{
		"in native, the work in the new thread at the first spawn (",
		"in emscripten, the work in the new thread at the first spawn (",
		"with no new OS thread in steady state",
		"wazero made no new OS thread for a spawn.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the sentence lacks %q:\n%s", want, s)
		}
	}
	for _, row := range r.Anatomy.Rows {
		if row.Placement == report.PlaceFreeName && (row.Row == "native" || row.Row == "wasi-threads") && strings.Contains(s, textfmtTime(row.SpawnUS)) {
			t.Errorf("the sentence quotes %s's free figure %s, not its one-CPU headline:\n%s", row.Row, textfmtTime(row.SpawnUS), s)
		}
	}
	var md bytes.Buffer
	if err := Write(r, &md, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), s) || !strings.Contains(md.String(), "## Where the time goes\n") {
		t.Error("the report lacks the sentence or the section")
	}
	if !strings.Contains(BottomLineText(r), s) {
		t.Error("the bottom line run prints lacks the sentence")
	}
}

// A set that traced nothing has no section, no sentence and no plot, and
// asking for the section is bad input.
func TestNoAnatomyWithoutTracing(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.RealisticSet(t))
	var md bytes.Buffer
	if err := Write(r, &md, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Where the time goes") {
		t.Error("a set with no traced process says where the time goes")
	}
	var ie *inputerr.Error
	if err := WriteSection(r, &bytes.Buffer{}, "anatomy"); !errors.As(err, &ie) {
		t.Errorf("WriteSection(anatomy) of an untraced set: %v, want an input error", err)
	}
	if p, err := anatomyPlot(r, t.TempDir()); p != nil || err != nil {
		t.Errorf("anatomy plot of an untraced set: %v, %v", p, err)
	}
}

// The anatomy plot is drawn as SVG and PNG and shown in its section,
// not among the other plots.
func TestAnatomyPlotIsShownWithItsSection(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.TracedSet())
	dir := t.TempDir()
	plots, err := WritePlots(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".svg", ".png"} {
		if fi, err := os.Stat(filepath.Join(dir, anatomyPlotBase+ext)); err != nil || fi.Size() == 0 {
			t.Errorf("no %s%s: %v", anatomyPlotBase, ext, err)
		}
	}
	var md bytes.Buffer
	if err := Write(r, &md, FormatMarkdown, plots); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	link := "](" + anatomyPlotBase + ".png)"
	at, section, plotsAt := strings.Index(text, link), strings.Index(text, "## Where the time goes"), strings.Index(text, "## Plots")
	if strings.Count(text, link) != 1 || at < section || (plotsAt >= 0 && at > plotsAt) {
		t.Errorf("the anatomy plot is linked %d times, at %d (section at %d, plots at %d)", strings.Count(text, link), at, section, plotsAt)
	}
}

func textfmtTime(v report.Float) string { return " of " + textfmt.TimeUS(float64(v)) + ")" }

// The JSON carries the anatomy as the issue names it: anatomy.rows[]
// with environment, figure ("first" or "steady"), spawn_us, processes
// and parts[] of {name, median_us, low_us, high_us}, names before,
// kernel, scheduler and in_thread, in_thread with the host's phases
// nested in its phases[] in the same shape where the host times them;
// and the tracing's cost.
func TestAnatomyJSONShape(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.TracedSet())
	var b bytes.Buffer
	if err := Write(r, &b, FormatJSON, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Anatomy struct {
			Rows []map[string]any `json:"rows"`
		} `json:"anatomy"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Anatomy.Rows) == 0 {
		t.Fatal("no anatomy.rows in the JSON")
	}
	withParts, withPhases := 0, 0
	for _, row := range doc.Anatomy.Rows {
		for _, key := range []string{"environment", "figure", "spawn_us", "processes", "parts", "tracing_cost", "new_os_thread_share"} {
			if _, ok := row[key]; !ok {
				t.Fatalf("a row lacks %q: %v", key, row)
			}
		}
		if f := row["figure"]; f != "first" && f != "steady" {
			t.Errorf("figure %v", f)
		}
		parts := row["parts"].([]any)
		if len(parts) == 0 {
			continue
		}
		withParts++
		var names []string
		for _, p := range parts {
			part := p.(map[string]any)
			for _, key := range []string{"name", "median_us", "low_us", "high_us"} {
				if _, ok := part[key]; !ok {
					t.Fatalf("a part lacks %q: %v", key, part)
				}
			}
			names = append(names, part["name"].(string))
			phases, ok := part["phases"].([]any)
			if !ok {
				continue
			}
			if part["name"] != report.PartInThread {
				t.Errorf("part %v has phases", part["name"])
			}
			withPhases++
			var phaseNames []string
			for _, ph := range phases {
				phase := ph.(map[string]any)
				for _, key := range []string{"name", "median_us", "low_us", "high_us", "processes"} {
					if _, ok := phase[key]; !ok {
						t.Fatalf("a phase lacks %q: %v", key, phase)
					}
				}
				phaseNames = append(phaseNames, phase["name"].(string))
			}
			if got := strings.Join(phaseNames, " "); got != "thread_start store instance guest_entry" {
				t.Errorf("in_thread's phases named %s", got)
			}
		}
		if got := strings.Join(names, " "); got != "before kernel scheduler in_thread" {
			t.Errorf("parts named %s", got)
		}
		cost := row["tracing_cost"].(map[string]any)
		for _, key := range []string{"ratio", "low", "high", "traced_us", "untraced_us", "beyond_interval", "moved"} {
			if _, ok := cost[key]; !ok {
				t.Fatalf("a tracing cost lacks %q: %v", key, cost)
			}
		}
	}
	if withParts == 0 || withPhases != 4 {
		t.Errorf("%d rows have parts, %d phases in in_thread; want some, and 4 (the embedded host's first and steady, free and on one CPU)", withParts, withPhases)
	}
}

// A set whose twins could not be traced says so, and why, in the
// section, and says nothing of where the time goes in the bottom line.
func TestAnatomySaysWhyNothingWasTraced(t *testing.T) {
	t.Parallel()
	s := reporttest.TracedSet()
	for i := range s.Runs {
		if run := &s.Runs[i]; strings.HasSuffix(run.Environment, report.TracedSuffix) {
			run.Traced, run.TraceNote = false, "not root | no tracefs"
		}
	}
	for i := range s.Samples {
		s.Samples[i].NewOSThread = nil
	}
	r := reporttest.Build(t, s)
	var md bytes.Buffer
	if err := Write(r, &md, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	if !strings.Contains(text, "## Where the time goes\n\nProcesses that were to be traced and were not") ||
		!strings.Contains(text, `- 120 processes of native@traced, native@one-cpu@traced, wasi-threads@traced, wasi-threads@one-cpu@traced, wazero@traced and emscripten@traced: not root \| no tracefs`) {
		t.Errorf("the section does not say why nothing was traced:\n%s", text[strings.Index(text, "## Where the time goes"):][:600])
	}
	if anatomyText(r) != "" || strings.Contains(text, "### What tracing costs") {
		t.Error("an untraced set states parts or a cost")
	}
}
