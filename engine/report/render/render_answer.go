package render

import (
	"fmt"
	"slices"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// answerText is the answer in sentences, one per spawn kind that has
// rows, in the same order on every machine, or "" without one:
//
//	In wasi-threads, wasmtime-46 and wamr (an OS thread per spawn, as
//	native's) a thread spawn costs 2.15–6.21× native's at the first spawn
//	(n = 1) and 2.91–10.4× in steady state (n = 100, last 10). In the 6
//	environments of hosts node, chromium and firefox (a new worker per
//	spawn) it costs 285–716× at the first spawn and 500–3595× in steady
//	state. In emscripten and emscripten-chromium (workers that Emscripten
//	starts once and reuses) it costs 480–525× at the first spawn and
//	5.33–10.1× in steady state. The baseline, native, is itself unstable
//	at the first spawn and in steady state: every ratio there moves with
//	it.
//
// Wazero's goroutines are a group apart (hostfacts.SpawnGoroutine says
// why), and the sentence says what they are.
func answerText(b *report.BottomLine) string {
	a := b.Answer
	if a == nil {
		return ""
	}
	// Each column is named with its n once, where the answer first uses it.
	named := map[report.Column]bool{}
	at := func(c report.Column) string {
		t := columnAt(b, c)
		if !named[c] {
			named[c] = true
			t += " (" + columnText(c) + ")"
		}
		return t
	}
	var s []string
	for i, g := range a.Groups {
		subject := "it costs " + rangeText(g.First)
		if i == 0 {
			subject = fmt.Sprintf("a thread spawn costs %s %s's", rangeText(g.First), b.Baseline)
		}
		t := fmt.Sprintf("In %s (%s) %s %s", groupText(b, g.Environments), spawnWhat(g.Spawn), subject, at(b.First))
		if g.Steady != nil {
			t += fmt.Sprintf(" and %s %s", rangeText(g.Steady), at(b.Steady))
		}
		s = append(s, t+".")
	}
	var clustered []string
	for _, n := range a.BaselineClusters {
		if cl := n.Judgement.Clusters; len(cl) == 2 {
			clustered = append(clustered, fmt.Sprintf("%s %s (%.0f%% at %s, %.0f%% at %s)", columnAt(b, n.Column), baselinePlacementText(n.Placement),
				100*float64(cl[0].Share), textfmt.TimeUS(float64(cl[0].TypicalUS)), 100*float64(cl[1].Share), textfmt.TimeUS(float64(cl[1].TypicalUS))))
		}
	}
	if len(clustered) > 0 {
		s = append(s, fmt.Sprintf("%s's processes fall into two clusters %s: every ratio over them divides by the faster cluster, whose figure does not move with their shares from run to run.",
			capitalize(b.Baseline), textfmt.List(clustered, "and")))
	}
	if len(a.BaselineUnstable) > 0 {
		var cols []string
		for _, c := range a.BaselineUnstable {
			cols = append(cols, columnAt(b, c))
		}
		s = append(s, fmt.Sprintf("The baseline, %s, is itself unstable %s: every ratio there moves with it.", b.Baseline, textfmt.List(cols, "and")))
	}
	if len(a.LeftOut) > 0 {
		s = append(s, fmt.Sprintf("(%s not judged at the first spawn: %s.)", textfmt.Plural(len(a.LeftOut), "row", "rows"), textfmt.List(a.LeftOut, "and")))
	}
	return strings.Join(s, " ")
}

// baselinePlacementText says where a baseline cell's threads ran.
func baselinePlacementText(placement string) string {
	if placement == report.PlaceOneCPUName {
		return "on one CPU"
	}
	return "with the scheduler free"
}

// spawnWhat says what a spawn of kind (hostfacts.SpawnKinds) starts.
func spawnWhat(kind string) string {
	switch kind {
	case hostfacts.SpawnOSThread:
		return "an OS thread per spawn, as native's"
	case hostfacts.SpawnPooledOSThread:
		return "OS threads from a pool the runtime keeps and reuses"
	case hostfacts.SpawnGoroutine:
		return "a goroutine per spawn, which Go's scheduler runs on OS threads it already has: no OS thread of its own"
	case hostfacts.SpawnWorkerPerSpawn:
		return "a new worker per spawn"
	case hostfacts.SpawnReusedWorker:
		return "workers that Emscripten starts once and reuses"
	case hostfacts.SpawnCooperative:
		return "the component model's own threads, switched on one OS thread: no thread starts and none runs in parallel"
	}
	return "threads of a kind their family does not declare"
}

// groupText names a group's environments: "wasi-threads, wasmtime-46 and
// wamr", or for more than three "the 6 environments of hosts node,
// chromium and firefox".
func groupText(b *report.BottomLine, envs []string) string {
	if len(envs) <= 3 {
		return textfmt.List(envs, "and")
	}
	var hosts []string
	for _, row := range b.Rows {
		for _, e := range envs {
			if row.Environment == e && row.Host != "" && !slices.Contains(hosts, row.Host) {
				hosts = append(hosts, row.Host)
			}
		}
	}
	word := "hosts"
	if len(hosts) == 1 {
		word = "host"
	}
	return fmt.Sprintf("the %d environments of %s %s", len(envs), word, textfmt.List(hosts, "and"))
}

// columnAt is "at the first spawn", "in steady state" or "at n = 10".
func columnAt(b *report.BottomLine, c report.Column) string {
	phrase := columnPhrase(b, c)
	if c == b.First {
		return "at the " + phrase
	}
	if c == b.Steady {
		return "in " + phrase
	}
	return "at " + phrase
}

// rangeText is "1.81–4.90×", or "4.90×" for a range of one value.
func rangeText(r *report.RatioRange) string {
	lo, hi := textfmt.Ratio(float64(r.Low)), textfmt.Ratio(float64(r.High))
	if lo == hi {
		return lo + "×"
	}
	return lo + "–" + hi + "×"
}
