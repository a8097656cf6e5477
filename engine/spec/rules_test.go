package spec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spawnbench/engine/stats"
)

// verdictWords name the verdicts whose rules a comment may state; one
// that names them says what the rule is, and must say it in the rule's
// own words.
var verdictWords = regexp.MustCompile(`\b(?:not judged|unstable)\b`)

// commentText is the text of a CUE file's // comments, lower case, with
// every run of white space one space, so that a quote wrapped over
// several comment lines reads as one.
func commentText(src string) string {
	var parts []string
	for _, line := range strings.Split(src, "\n") {
		if _, c, ok := strings.Cut(line, "//"); ok {
			parts = append(parts, c)
		}
	}
	return strings.ToLower(strings.Join(strings.Fields(strings.Join(parts, " ")), " "))
}

// strayRuleWords are the verdict words of text left once every quote of
// a rule's summary is taken out: each one words a rule by hand.
func strayRuleWords(text string) []string {
	for _, r := range stats.Rules {
		text = strings.ReplaceAll(text, strings.ToLower(r.Summary), "")
	}
	return verdictWords.FindAllString(text, -1)
}

// TestSchemaCommentsQuoteTheRules: what spawnbench schema prints, and the
// shipped specs' comments, state a verdict's rule only by quoting its
// summary (stats.Rules), so they cannot give a bar the code does not use;
// and the schema says at samples.precision and an environment's processes
// what the precision and not-judged rules are.
func TestSchemaCommentsQuoteTheRules(t *testing.T) {
	schema, err := SchemaText()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"spawnbench schema": commentText(schema)}
	shipped, err := filepath.Glob(filepath.Join("..", "..", "specs", "*.cue"))
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := filepath.Glob(filepath.Join("..", "..", "specs", "shared", "*.cue"))
	if len(shipped) == 0 || len(shared) == 0 {
		t.Fatalf("no shipped specs found: %v %v", shipped, shared)
	}
	for _, f := range append(shipped, shared...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = commentText(string(b))
	}
	for name, text := range texts {
		if stray := strayRuleWords(text); len(stray) > 0 {
			t.Errorf("%s words a verdict's rule by hand (%q): quote the rule's summary from engine/stats/rules.go instead", name, stray)
		}
	}
	for _, r := range []stats.Rule{stats.NotJudgedRule, stats.PrecisionRule} {
		if !strings.Contains(texts["spawnbench schema"], strings.ToLower(r.Summary)) {
			t.Errorf("spawnbench schema does not quote the %s rule: %q", r.Name, r.Summary)
		}
	}
	// The stale words this test was written against are caught.
	for _, stale := range []string{
		`a wider cell is reported "not converged: ±x%" and judged unstable.`,
		`a cell with fewer processes than samples.processes reports its figure as "not judged".`,
	} {
		if len(strayRuleWords(commentText("// "+stale))) == 0 {
			t.Errorf("%q passed", stale)
		}
	}
}
