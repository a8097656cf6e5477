package stats

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// number is the integer the first match of pattern in text captures; the
// test fails when the words no longer say it.
func number(t *testing.T, text, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%q does not say %s", text, pattern)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRulesSayWhatTheCodeDoes reads the bars off the rules' words and
// puts the code to each at that bar and one below it: the words state
// the rule the code applies, not one it once did.
func TestRulesSayWhatTheCodeDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	cell := func(k int) []Process {
		origin := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		procs := make([]Process, k)
		for i := range procs {
			procs[i] = Process{Value: 30 * math.Exp(0.2*rng.NormFloat64()), Start: origin.Add(time.Duration(i) * time.Second)}
		}
		return procs
	}

	// Not judged: fewer than k processes, no interval and no verdict.
	k := number(t, NotJudgedRule.Summary, `fewer than (\d+) processes`)
	if k2 := number(t, NotJudgedRule.Definition, `fewer than (\d+) processes`); k2 != k {
		t.Errorf("not judged: the summary says %d processes, the definition %d", k, k2)
	}
	if e := Summarize(cell(k - 1)); e.Judged() || e.Bounded() {
		t.Errorf("not judged: %d processes are judged or bounded: %+v", k-1, e)
	}
	if e := Summarize(cell(k)); !e.Judged() || !e.Bounded() {
		t.Errorf("not judged: %d processes are not judged, or have no interval: %+v", k, e)
	}

	// Unstable by drift: the test needs h processes in each half.
	h := number(t, UnstableRule.Definition, `with (\d+) processes or more in each half`)
	if e := Summarize(cell(2*h - 1)); !math.IsNaN(e.DriftP) {
		t.Errorf("drift: %d processes were tested (p = %g)", 2*h-1, e.DriftP)
	}
	if e := Summarize(cell(2 * h)); math.IsNaN(e.DriftP) {
		t.Errorf("drift: %d processes were not tested", 2*h)
	}
	if !strings.Contains(UnstableRule.Definition, "p < "+strconv.FormatFloat(DriftAlpha, 'g', -1, 64)) {
		t.Errorf("drift: %q does not give DriftAlpha", UnstableRule.Definition)
	}

	// Busy, the figure rising with the load: over m processes or more.
	m := number(t, BusyRule.Definition, `over (\d+) processes or more with a figure`)
	loads := tickMachine{others: 0.1, steal: 0.1, own: 1, wallNS: 100e6}.cell(rng, m, nil)
	if l := Busy(loads[:m-1]); l.Tested != 0 {
		t.Errorf("busy: %d processes were tested for the effect", m-1)
	}
	if l := Busy(loads); l.Tested != m {
		t.Errorf("busy: %d processes were tested for the effect, want %d", l.Tested, m)
	}

	// Busy throughout: over s processes or more, beside a CPU hog.
	s := number(t, BusyRule.Definition, `clearly so: over (\d+) processes or more`)
	hog := make([]ProcessLoad, s)
	for i := range hog {
		hog[i] = ProcessLoad{WallNS: 100e6, OthersNS: 190e6, StealNS: 0, Figure: math.NaN()}
	}
	if l := Busy(hog[:s-1]); l.Throughout {
		t.Errorf("busy throughout over %d processes", s-1)
	}
	if l := Busy(hog); !l.Throughout {
		t.Errorf("not busy throughout over %d processes beside a hog: %+v", s, l)
	}
	share := number(t, BusyRule.Summary, `took (\d+)% of their wall time`)
	below := make([]ProcessLoad, 50)
	for i := range below {
		below[i] = ProcessLoad{WallNS: 100e6, OthersNS: float64(share-1) * 1e6, StealNS: 0, Figure: math.NaN()}
	}
	if l := Busy(below); l.Throughout {
		t.Errorf("busy throughout at %d%% of the wall time, under the %d%% the rule says", share-1, share)
	}
}

// TestRulesAreWhole: every rule has a name, a summary of one clause and
// a definition of whole sentences, and no two share a name.
func TestRulesAreWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if r.Name == "" || seen[r.Name] {
			t.Errorf("rule %+v: no name, or a name twice", r)
		}
		seen[r.Name] = true
		if r.Summary == "" || strings.HasSuffix(r.Summary, ".") || strings.ToLower(r.Summary[:1]) != r.Summary[:1] {
			t.Errorf("%s: the summary %q is not one lower-case clause", r.Name, r.Summary)
		}
		if !strings.HasSuffix(r.Definition, ".") || strings.ToUpper(r.Definition[:1]) != r.Definition[:1] || strings.Contains(r.Definition, "%!") {
			t.Errorf("%s: the definition %q is not whole sentences", r.Name, r.Definition)
		}
		if !strings.Contains(r.Summary, r.Name) {
			t.Errorf("%s: the summary %q does not name it", r.Name, r.Summary)
		}
	}
}
