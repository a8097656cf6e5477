package render

import (
	"bytes"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/stats"
)

// TestLegendsQuoteTheRules: a report's legends and a comparison's state
// every verdict's rule in engine/stats' words (stats.Rules), whole, so
// no legend words a rule by hand.
func TestLegendsQuoteTheRules(t *testing.T) {
	t.Parallel()
	set := reporttest.RealisticSet(t)
	r, err := report.Build([]report.Input{{Dir: "fixture", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := report.Compare(report.Input{Dir: "fixture", Set: set}, report.Input{Dir: "again", Set: reporttest.RealisticSet(t)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rep, com bytes.Buffer
	if err := Write(r, &rep, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteComparison(cmp, &com, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, rule := range stats.Rules {
		if !strings.Contains(rep.String(), rule.Definition) {
			t.Errorf("report.md does not state the %s rule as engine/stats does: %q", rule.Name, rule.Definition)
		}
		// A comparison marks a change † where either side holds an
		// untrusted sample; the clock rule is the report's.
		if rule != stats.PrecisionRule && rule != stats.ClockRule && !strings.Contains(com.String(), rule.Definition) {
			t.Errorf("compare's Markdown does not state the %s rule as engine/stats does", rule.Name)
		}
	}
}
