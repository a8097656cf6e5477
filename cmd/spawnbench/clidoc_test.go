package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	heading  = regexp.MustCompile(`(?m)^#+ (.+)$`)
	pageLink = regexp.MustCompile(`\]\(#([^)]+)\)`)
)

// slug is a heading's anchor as GitHub makes it: lower case, spaces as
// hyphens, other punctuation dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var update = flag.Bool("update", false, "rewrite the generated block of docs/cli.md and the command goldens (testdata/golden)")

// cliBlockStart and cliBlockEnd enclose docs/cli.md's generated block.
const (
	cliBlockStart = "<!-- spawnbench cli: generated from the command tree; rewrite with go test ./cmd/spawnbench -run TestCLIReferenceIsCurrent -update -->"
	cliBlockEnd   = "<!-- end spawnbench -->"
)

// withCLIReference is page with its generated block replaced by want,
// and whether it has one.
func withCLIReference(page, want string) (string, bool) {
	start := strings.Index(page, cliBlockStart+"\n")
	if start < 0 {
		return page, false
	}
	body := start + len(cliBlockStart) + 1
	end := strings.Index(page[body:], cliBlockEnd)
	if end < 0 {
		return page, false
	}
	return page[:body] + want + page[body+end:], true
}

// TestCLIReferenceIsCurrent: docs/cli.md's generated block is what the
// command tree gives today, so a flag or text changed in the code and not
// on the page, or on the page by hand, fails.
func TestCLIReferenceIsCurrent(t *testing.T) {
	want, err := cliReference(testRoot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repoRoot(t), "docs", "cli.md")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fixed, ok := withCLIReference(string(text), want)
	if !ok {
		t.Fatalf("%s has no generated block: a line %q, the reference, then %q", path, cliBlockStart, cliBlockEnd)
	}
	// Every link within the page leads to a heading of it, the generated
	// ones' too (a heading's anchor as GitHub makes it).
	anchors := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fixed, -1) {
		anchors[slug(m[1])] = true
	}
	for _, m := range pageLink.FindAllStringSubmatch(fixed, -1) {
		if !anchors[m[1]] {
			t.Errorf("%s links to #%s, which no heading of it is", path, m[1])
		}
	}
	for _, want := range []string{"## spawnbench run\n", "--occasions int", "--precision float", "--from string",
		"spawnbench plan SPEC.cue | plan --precision P --from SET", "## spawnbench wasmtime\n"} {
		if !strings.Contains(fixed, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
	if fixed == string(text) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's generated block differs from the command tree's help: regenerate it with go test ./cmd/spawnbench -run TestCLIReferenceIsCurrent -update", path)
}

// TestManPages: spawnbench man DIR writes a page per command, each with
// the command's own text.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	man := filepath.Join(dir, "man1")
	if _, stderr, code := runCLI(t, "man", man); code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for page, want := range map[string]string{
		"spawnbench.1":      "Exit status",
		"spawnbench-run.1":  "occasions",
		"spawnbench-plan.1": "precision",
	} {
		b, err := os.ReadFile(filepath.Join(man, page))
		if err != nil || !strings.HasPrefix(string(b), ".nh\n.TH ") || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v, want a man page that says %q:\n%.200s", page, err, want, b)
		}
	}
}
