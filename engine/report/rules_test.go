package report

import (
	"bytes"
	"strings"
	"testing"

	"spawnbench/engine/stats"
)

// TestLegendsQuoteTheRules: a report's legends and a comparison's state
// every verdict's rule in engine/stats' words (stats.Rules), whole, so
// no legend words a rule by hand.
func TestLegendsQuoteTheRules(t *testing.T) {
	set := realisticSet(t)
	r, err := Build([]Input{{Dir: "fixture", Set: set}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare(Input{Dir: "fixture", Set: set}, Input{Dir: "again", Set: realisticSet(t)}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rep, com bytes.Buffer
	if err := r.Write(&rep, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	if err := cmp.Write(&com, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, rule := range stats.Rules {
		if !strings.Contains(rep.String(), rule.Definition) {
			t.Errorf("report.md does not state the %s rule as engine/stats does: %q", rule.Name, rule.Definition)
		}
		if rule != stats.PrecisionRule && !strings.Contains(com.String(), rule.Definition) {
			t.Errorf("compare's Markdown does not state the %s rule as engine/stats does", rule.Name)
		}
	}
}
