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
// The test fails when a block differs from what its set gives now, names
// a directory that is not a result set committed to the repository, or
// when a page quotes a set under /tmp; go test ./docs -update rewrites
// the blocks.
package docs_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
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
	blockStart = regexp.MustCompile(`^<!-- spawnbench (report|run-output|compare) (\S+)(?: ([^-\s]\S*))?(?: --section (\S+))? -->$`)
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
			problems = append(problems, problem{page, fmt.Sprintf("line %d: the block of %s %s differs from what that set gives today (regenerate with go test ./docs -update)", i+1, kind, dir)})
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
		if err := r.WriteSection(&b, section); err != nil {
			return "", err
		}
	case "run-output":
		fmt.Fprintf(&b, "```text\n%s\n%s```\n", run.Summary(set), r.BottomLineText())
	}
	return b.String(), nil
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
	if err := c.Write(&b, report.FormatMarkdown); err != nil {
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
