package render

import (
	"fmt"
	"slices"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// answerText is the answer as one or two sentences, or "" without one:
//
//	A thread spawn in wasi-threads, wasmtime-46 and wamr costs 1.81–4.90×
//	native's at the first spawn (n = 1) and 1.93–9.94× in steady state
//	(n = 100, last 10). In the 13 other environments (hosts node, ...) it
//	costs 30.4–609× at the first spawn and 56.6–2367× in steady state,
//	except emscripten and ... in steady state: 3.40–4.66×.
//	wasmtime-49-cm-threads (its threads are the component model's own
//	threads, ...) starts no OS thread: a spawn there costs 0.39× native's
//	at the first spawn and 0.12× in steady state, not the cost of starting
//	a thread that runs in parallel.
func answerText(b *report.BottomLine) string {
	a := b.Answer
	if a == nil {
		return ""
	}
	first, steady := "at the first spawn ("+columnText(b.First)+")", "in steady state ("+columnText(b.Steady)+")"
	var s []string
	if g := a.Near; len(g.Environments) > 0 {
		t := fmt.Sprintf("A thread spawn in %s costs %s %s's %s", textfmt.List(g.Environments, "and"), rangeText(g.First), b.Baseline, first)
		if g.Steady != nil {
			t += fmt.Sprintf(" and %s %s", rangeText(g.Steady), steady)
		}
		s = append(s, t+".")
	}
	if g := a.Far; len(g.Environments) > 0 {
		t := fmt.Sprintf("A thread spawn in %s costs %s %s's %s", textfmt.List(g.Environments, "and"), rangeText(g.First), b.Baseline, first)
		if len(a.Near.Environments) > 0 {
			// The columns are named once, in the first sentence.
			first, steady = "at the first spawn", "in steady state"
			others := fmt.Sprintf("%d other environments", len(g.Environments))
			if len(g.Environments) == 1 {
				others = "other environment"
			}
			t = fmt.Sprintf("In the %s (%s) it costs %s %s", others, hostsText(b, g.Environments), rangeText(g.First), first)
		}
		if g.Steady != nil {
			t += fmt.Sprintf(" and %s %s", rangeText(g.Steady), steady)
		}
		if len(g.SteadyNear) > 0 {
			t += fmt.Sprintf(", except %s %s: %s", textfmt.List(g.SteadyNear, "and"), steady, rangeText(g.SteadyNearRange))
		}
		s = append(s, t+".")
	}
	if g := a.NotOSThreads; len(g.Environments) > 0 {
		if len(a.Near.Environments)+len(a.Far.Environments) > 0 {
			first, steady = "at the first spawn", "in steady state"
		}
		t := fmt.Sprintf("%s %s no OS thread: a spawn there costs %s %s's %s", textfmt.List(g.Environments, "and"),
			notOSThreadsText(b, g.Environments), rangeText(g.First), b.Baseline, first)
		if g.Steady != nil {
			t += fmt.Sprintf(" and %s %s", rangeText(g.Steady), steady)
		}
		s = append(s, t+", not the cost of starting a thread that runs in parallel.")
	}
	if len(a.LeftOut) > 0 {
		s = append(s, fmt.Sprintf("(%s not judged at the first spawn: %s.)", textfmt.Plural(len(a.LeftOut), "row", "rows"), textfmt.List(a.LeftOut, "and")))
	}
	return strings.Join(s, " ")
}

// notOSThreadsWhy says, for each family whose spawn starts no OS thread,
// what its threads are instead.
var notOSThreadsWhy = map[string]string{
	hostfacts.CooperativeThreads: "the component model's own threads, made by thread.new-indirect and run by a switch of stacks on one OS thread",
}

// notOSThreadsText is "(its threads are ...) starts" or "(their threads
// are ...) start": what the rows' families' threads are, where
// notOSThreadsWhy says.
func notOSThreadsText(b *report.BottomLine, envs []string) string {
	var whys []string
	for _, row := range b.Rows {
		if why := notOSThreadsWhy[row.Family]; why != "" && slices.Contains(envs, row.Environment) && !slices.Contains(whys, why) {
			whys = append(whys, why)
		}
	}
	switch {
	case len(whys) == 0 && len(envs) == 1:
		return "starts"
	case len(whys) == 0:
		return "start"
	case len(envs) == 1:
		return "(its threads are " + textfmt.List(whys, "and") + ") starts"
	}
	return "(their threads are " + textfmt.List(whys, "and") + ") start"
}

// rangeText is "1.81–4.90×", or "4.90×" for a range of one value.
func rangeText(r *report.RatioRange) string {
	lo, hi := textfmt.Ratio(float64(r.Low)), textfmt.Ratio(float64(r.High))
	if lo == hi {
		return lo + "×"
	}
	return lo + "–" + hi + "×"
}

// hostsText names the hosts of envs' rows: "hosts node, chromium and
// firefox", or "host node".
func hostsText(b *report.BottomLine, envs []string) string {
	var hosts []string
	for _, row := range b.Rows {
		for _, e := range envs {
			if row.Environment == e && row.Host != "" && !slices.Contains(hosts, row.Host) {
				hosts = append(hosts, row.Host)
			}
		}
	}
	if len(hosts) == 1 {
		return "host " + hosts[0]
	}
	return "hosts " + textfmt.List(hosts, "and")
}
