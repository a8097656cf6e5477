// Package docs_test keeps the figures that README.md, docs/ and
// results/README.md quote from result sets equal to what spawnbench
// computes from those sets today.
//
// A figure from a result set is quoted only inside a generated block:
//
//	<!-- spawnbench report results/reference --section bottom-line -->
//	... what `spawnbench report` renders of that section ...
//	<!-- end spawnbench -->
//
//	<!-- spawnbench run-output results/quick -->
//	... what `spawnbench run` printed at the end of that set's run ...
//	<!-- end spawnbench -->
//
//	<!-- spawnbench compare results/occasions-a results/occasions-b --section ratios -->
//	... that section of what `spawnbench compare` renders of the two ...
//	<!-- end spawnbench -->
//
//	<!-- spawnbench columns cells.parquet -->
//	... the table of that file's columns: name, type, null, description ...
//	<!-- end spawnbench -->
//
// A columns block is written from the descriptions the columns carry in
// engine/results, so a column added, renamed or described anew there
// fails the test until the page is regenerated, and a column without a
// description fails it for good.
//
// And a verdict's rule is stated only in the words of engine/stats, which
// applies it (stats.Rules, a space in its name a hyphen here):
//
//	<!-- spawnbench rule not-judged -->
//	... the rule's definition ...
//	<!-- end spawnbench -->
//
// The test fails when a block differs from what its set or rule gives
// now, names a directory that is not a result set committed to the
// repository, or when a page quotes a set under /tmp; go test ./docs
// -update rewrites the blocks.
package docs_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"spawnbench/engine/report"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
	"spawnbench/engine/stats"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of README.md, docs/ and results/README.md")

// pages are the files whose blocks are checked, relative to the root.
func pages(t *testing.T, root string) []string {
	t.Helper()
	out := []string{"README.md", "results/README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", filepath.Base(d)))
	}
	return out
}

var (
	blockStart = regexp.MustCompile(`^<!-- spawnbench (report|run-output|compare|columns|rule) (\S+)(?: ([^-\s]\S*))?(?: --section (\S+))? -->$`)
	blockEnd   = "<!-- end spawnbench -->"
	tmpQuote   = regexp.MustCompile(`(?:report|compare|merge|-o|--from)\s+/tmp/`)
)

// problem is one thing wrong with a page.
type problem struct{ page, what string }

// checkPage checks one page's blocks against root's committed sets and
// returns the page as it should be.
func checkPage(root, page string, text []byte, committed func(dir string) bool) ([]byte, []problem) {
	var problems []problem
	lines := strings.Split(string(text), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if tmpQuote.MatchString(line) {
			problems = append(problems, problem{page, fmt.Sprintf("line %d quotes a result set under /tmp, which no reader has: commit the set under results/ and quote it in a generated block", i+1)})
		}
		m := blockStart.FindStringSubmatch(line)
		out = append(out, line)
		if m == nil {
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == blockEnd {
				end = j
				break
			}
		}
		if end < 0 {
			problems = append(problems, problem{page, fmt.Sprintf("line %d opens a block that no %q closes", i+1, blockEnd)})
			return text, problems
		}
		kind, dir, other, section := m[1], m[2], m[3], m[4]
		want, err := generate(root, kind, dir, other, section, committed)
		if err != nil {
			problems = append(problems, problem{page, fmt.Sprintf("line %d: %v", i+1, err)})
			want = strings.Join(lines[i+1:end], "\n") + "\n"
		}
		if got := strings.Join(lines[i+1:end], "\n") + "\n"; err == nil && got != want {
			what := fmt.Sprintf("the block of %s %s differs from what that set gives today", kind, dir)
			switch kind {
			case "columns":
				what = fmt.Sprintf("the table of %s's columns differs from engine/results' descriptions of them", dir)
			case "rule":
				what = fmt.Sprintf("the block of rule %s differs from how engine/stats words the rule today", dir)
			}
			problems = append(problems, problem{page, fmt.Sprintf("line %d: %s (regenerate with go test ./docs -update)", i+1, what)})
		}
		out = append(out, strings.Split(strings.TrimSuffix(want, "\n"), "\n")...)
		out = append(out, blockEnd)
		i = end
	}
	return []byte(strings.Join(out, "\n")), problems
}

// generate renders one block from the set in dir (and, for compare, the
// set in other beside it).
func generate(root, kind, dir, other, section string, committed func(string) bool) (string, error) {
	if kind == "columns" {
		return columnTable(dir)
	}
	if kind == "rule" {
		return ruleBlock(dir)
	}
	read := func(dir string) (report.Input, error) {
		if !committed(dir) {
			return report.Input{}, fmt.Errorf("%s is not a result set committed to the repository: commit it under results/, or quote another", dir)
		}
		set, err := sets.read(filepath.Join(root, dir))
		return report.Input{Dir: dir, Set: set}, err
	}
	in, err := read(dir)
	if err != nil {
		return "", err
	}
	if kind == "compare" {
		return compareSection(in, other, section, read)
	}
	r, err := sets.report(in)
	if err != nil {
		return "", err
	}
	set := in.Set
	var b bytes.Buffer
	switch kind {
	case "report":
		if err := render.WriteSection(r, &b, section); err != nil {
			return "", err
		}
	case "run-output":
		fmt.Fprintf(&b, "```text\n%s\n%s```\n", run.Summary(set), render.BottomLineText(r))
	}
	return b.String(), nil
}

// columnTable is the Markdown table of file's columns (one of the set's
// Parquet files), from engine/results' own descriptions of them.
func columnTable(file string) (string, error) {
	cols := results.Columns(file)
	if cols == nil {
		return "", fmt.Errorf("%s is no Parquet file of a result set", file)
	}
	var b strings.Builder
	b.WriteString("| column | type | null | what it holds |\n|---|---|---|---|\n")
	for _, c := range cols {
		if c.Description == "" {
			return "", fmt.Errorf("column %s of %s has no description: give it one in engine/results (.doc)", c.Name, file)
		}
		null := ""
		if c.Nullable {
			null = "yes"
		}
		typ := strings.NewReplacer("<", "\\<", ">", "\\>").Replace(c.Type)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, typ, null, strings.ReplaceAll(c.Description, "|", "\\|"))
	}
	return b.String(), nil
}

// ruleBlock is the definition of the verdict rule named name (a hyphen
// for each space), wrapped as the pages are.
func ruleBlock(name string) (string, error) {
	var names []string
	for _, r := range stats.Rules {
		id := strings.ReplaceAll(r.Name, " ", "-")
		if id == name {
			return wrapText(r.Definition, 72), nil
		}
		names = append(names, id)
	}
	return "", fmt.Errorf("engine/stats has no rule %q; its rules are %s", name, strings.Join(names, ", "))
}

// wrapText breaks text at spaces into lines of at most width runes.
func wrapText(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		switch {
		case n == 0:
		case n+1+wn > width:
			b.WriteString("\n")
			n = 0
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += wn
	}
	return b.String() + "\n"
}

// sets are the committed sets and their reports, each read and built
// once for the package's tests: several blocks quote one set, and the
// tests only read them.
var sets = &setCache{setsByDir: map[string]*results.Set{}, reportsByDir: map[string]*report.Report{}}

type setCache struct {
	mu           sync.Mutex
	setsByDir    map[string]*results.Set
	reportsByDir map[string]*report.Report
}

// read is the set in dir (results.Read), read once.
func (c *setCache) read(dir string) (*results.Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if set, ok := c.setsByDir[dir]; ok {
		return set, nil
	}
	set, err := results.Read(dir)
	if err != nil {
		return nil, err
	}
	c.setsByDir[dir] = set
	return set, nil
}

// report is in's report (report.Build), built once per directory.
func (c *setCache) report(in report.Input) (*report.Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.reportsByDir[in.Dir]; ok {
		return r, nil
	}
	r, err := report.Build([]report.Input{in}, report.Options{})
	if err != nil {
		return nil, err
	}
	c.reportsByDir[in.Dir] = r
	return r, nil
}

// compareSection is the section of `spawnbench compare base other`'s
// Markdown whose heading starts with section (case aside), or all of it.
func compareSection(base report.Input, other, section string, read func(string) (report.Input, error)) (string, error) {
	in, err := read(other)
	if err != nil {
		return "", err
	}
	c, err := report.Compare(base, in, report.CompareOptions{})
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := render.WriteComparison(c, &b, render.FormatMarkdown); err != nil {
		return "", err
	}
	if section == "" {
		return b.String(), nil
	}
	for _, part := range strings.Split(b.String(), "\n## ")[1:] {
		if strings.HasPrefix(strings.ToLower(part), strings.ToLower(section)) {
			return "## " + strings.TrimRight(part, "\n") + "\n", nil
		}
	}
	return "", fmt.Errorf("spawnbench compare %s %s has no section %q", base.Dir, other, section)
}

// committedSets says whether dir (relative to root) is a result set the
// repository holds: its provenance.json is tracked by git.
func committedSets(t *testing.T, root string) func(string) bool {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "results").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	tracked := map[string]bool{}
	for _, f := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(f, "/"+results.ProvenanceFile) {
			tracked[strings.TrimSuffix(f, "/"+results.ProvenanceFile)] = true
		}
	}
	return func(dir string) bool { return tracked[filepath.ToSlash(filepath.Clean(dir))] }
}

func TestQuotedFiguresAreTheCommittedSets(t *testing.T) {
	fulltest.Only(t, "builds the report of every committed result set the pages quote (TestAnEditedFigureFails checks the README's)")
	root := ".."
	committed := committedSets(t, root)
	blocks := 0
	for _, page := range pages(t, root) {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		blocks += strings.Count(string(text), "<!-- spawnbench ")
		fixed, problems := checkPage(root, page, text, committed)
		if *update && !bytes.Equal(fixed, text) {
			if err := os.WriteFile(filepath.Join(root, page), fixed, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, p := range problems {
			t.Errorf("%s: %s", p.page, p.what)
		}
	}
	if blocks == 0 {
		t.Error("no page has a generated block: the README's bottom line is one")
	}
}

// TestAnEditedFigureFails edits a figure inside a copy of the README's
// first block, and a block's directory, and wants both caught.
func TestAnEditedFigureFails(t *testing.T) {
	root := ".."
	committed := committedSets(t, root)
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, problems := checkPage(root, "README.md", text, committed); len(problems) > 0 {
		t.Fatalf("README.md as committed: %v", problems)
	}
	start := bytes.Index(text, []byte("<!-- spawnbench "))
	if start < 0 {
		t.Fatal("README.md has no generated block")
	}
	digit := regexp.MustCompile(`[0-9]\.[0-9]`)
	at := digit.FindIndex(text[start:])
	if at == nil {
		t.Fatal("README.md's first block has no figure")
	}
	edited := bytes.Clone(text)
	i := start + at[0]
	edited[i] = '0' + (edited[i]-'0'+1)%10
	if _, problems := checkPage(root, "README.md", edited, committed); len(problems) == 0 {
		t.Error("a figure edited inside a block passed the check")
	}
	moved := bytes.Replace(text, []byte("<!-- spawnbench report results/"), []byte("<!-- spawnbench report results/not-committed-"), 1)
	if _, problems := checkPage(root, "README.md", moved, committed); len(problems) == 0 || !strings.Contains(problems[0].what, "not a result set committed") {
		t.Errorf("a block of an uncommitted directory: %v", problems)
	}
	tmp := append(bytes.Clone(text), []byte("\n    spawnbench report /tmp/mine\n")...)
	if _, problems := checkPage(root, "README.md", tmp, committed); len(problems) == 0 {
		t.Error("a set quoted under /tmp passed the check")
	}
}

// TestColumnTablesFollowTheCode removes a row from docs/results.md's
// table of cells.parquet's columns and renames one, and wants both caught.
func TestColumnTablesFollowTheCode(t *testing.T) {
	root := ".."
	committed := committedSets(t, root)
	text, err := os.ReadFile(filepath.Join(root, "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, problems := checkPage(root, "docs/results.md", text, committed); len(problems) > 0 {
		t.Fatalf("docs/results.md as committed: %v", problems)
	}
	for _, file := range []string{results.SamplesFile, results.RunsFile, results.CalibrationFile, results.CellsFile} {
		if !bytes.Contains(text, []byte("<!-- spawnbench columns "+file+" -->")) {
			t.Errorf("docs/results.md has no generated table of %s's columns", file)
		}
	}
	row := regexp.MustCompile("(?m)^\\| `untrusted_samples` \\|.*\n")
	for name, edited := range map[string][]byte{
		"a row removed": row.ReplaceAll(text, nil),
		"a row renamed": bytes.Replace(text, []byte("| `ok_processes` |"), []byte("| `processes_used` |"), 1),
	} {
		if bytes.Equal(edited, text) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if _, problems := checkPage(root, "docs/results.md", edited, committed); len(problems) == 0 {
			t.Errorf("%s from the table of cells.parquet's columns passed the check", name)
		}
	}
}

// TestEveryRuleIsDefinedOnce: docs/statistics.md holds each verdict's
// rule as a generated block, once, and a hand edit inside one (a bar
// changed, or a word) fails the check.
func TestEveryRuleIsDefinedOnce(t *testing.T) {
	root := ".."
	committed := committedSets(t, root)
	const page = "docs/statistics.md"
	text, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stats.Rules {
		open := "<!-- spawnbench rule " + strings.ReplaceAll(r.Name, " ", "-") + " -->"
		if n := strings.Count(string(text), open); n != 1 {
			t.Errorf("%s has %d blocks %s, want 1", page, n, open)
		}
	}
	if _, problems := checkPage(root, page, text, committed); len(problems) > 0 {
		t.Fatalf("%s as committed: %v", page, problems)
	}
	start := bytes.Index(text, []byte("<!-- spawnbench rule "))
	if start < 0 {
		t.Fatal(page + " has no rule block")
	}
	end := start + bytes.Index(text[start:], []byte(blockEnd))
	for _, edit := range []struct{ old, new string }{
		{"p < 0.01", "p < 0.05"},
		{"unstable", "drifting"},
	} {
		block := string(text[start:end])
		if !strings.Contains(block, edit.old) {
			t.Fatalf("%s's first rule block does not say %q:\n%s", page, edit.old, block)
		}
		edited := string(text[:start]) + strings.Replace(block, edit.old, edit.new, 1) + string(text[end:])
		if _, problems := checkPage(root, page, []byte(edited), committed); len(problems) == 0 {
			t.Errorf("%q edited to %q inside a rule block passed the check", edit.old, edit.new)
		}
	}
	unknown := bytes.Replace(text, []byte("<!-- spawnbench rule busy -->"), []byte("<!-- spawnbench rule lazy -->"), 1)
	if _, problems := checkPage(root, page, unknown, committed); len(problems) == 0 || !strings.Contains(problems[0].what, "no rule") {
		t.Errorf("a block of a rule engine/stats lacks: %v", problems)
	}
}

// notJudgedBar finds a page's own words for the not-judged rule's bar:
// "not judged" and a count of processes in one sentence.
var notJudgedBar = regexp.MustCompile(`(?i)(?:fewer than|below|under|needs|at least) (\d+) processes[^.]*not judged|not judged[^.]*(?:fewer than|below|under|needs|at least) (\d+) processes`)

// TestPagesGiveTheNotJudgedBarOfTheCode: where a page says in its own
// words which cells are not judged, it gives the bar the code applies
// (stats.MinIntervalProcesses), as the README's and the specs page's
// tables do.
func TestPagesGiveTheNotJudgedBarOfTheCode(t *testing.T) {
	root := ".."
	found := 0
	for _, page := range pages(t, root) {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(string(text)), " ")
		for _, m := range notJudgedBar.FindAllStringSubmatch(flat, -1) {
			found++
			n := m[1] + m[2]
			if n != strconv.Itoa(stats.MinIntervalProcesses) {
				t.Errorf("%s: %q gives a bar of %s processes; the code's is %d (%s)", page, m[0], n, stats.MinIntervalProcesses, stats.NotJudgedRule.Summary)
			}
		}
	}
	if found == 0 {
		t.Error("no page says which cells are not judged: the README does")
	}
	if m := notJudgedBar.FindStringSubmatch("cells with fewer than 10 processes are reported \"not judged\""); m == nil || m[1] != "10" {
		t.Errorf("the check misses a stale bar: %v", m)
	}
}
