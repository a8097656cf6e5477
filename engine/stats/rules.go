package stats

import "fmt"

// Rule is one verdict's rule in words, built from the constants the rule
// itself applies, so that no page can state a bar the code does not use:
// the report's legend, the run's warnings, the report command's help,
// docs/statistics.md (generated blocks) and the schema's comments
// (tested) all quote these, and nothing words a rule by hand.
type Rule struct {
	// Name is the verdict as reports print it: "busy", "unstable", "not
	// judged", "precision".
	Name string
	// Summary is the rule in one clause, lower case and without a full
	// stop, for messages, help and comments.
	Summary string
	// Definition is the whole rule with every bar it applies, one or more
	// sentences, for legends and docs/statistics.md.
	Definition string
}

// The rules, each beside nothing but its constants: Busy (busy.go),
// Estimate.Judged and Estimate.Unstable (estimate.go, clusters.go) and
// Estimate.Precision apply them.
var (
	BusyRule = Rule{
		Name: "busy",
		Summary: fmt.Sprintf("a cell is busy only where its processes say the machine's load moved its figure: "+
			"it rises with their load, or others' work took %.0f%% of their wall time or more throughout", 100*SaturatedShare),
		Definition: fmt.Sprintf("A cell is busy when its processes say the machine's load moved its figure. "+
			"Either its figure rises with their load: over %d processes or more with a figure and every load column the cell recorded, "+
			"each process's load share (others' CPU less spawnbench's own work, plus the hypervisor's steal, over its wall time) "+
			"is regressed on the rank of its figure, with a robust standard error, at one-sided p < %g, "+
			"and the most-loaded half's median figure is at least %.2g× the least-loaded half's. "+
			"Or it is busy throughout: others' work (steal aside) took %.0f%% of the wall time or more, pooled over its processes, "+
			"and clearly so: over %d processes or more, the mean or %.0f%% trimmed mean of each one's excess over %.0f%% of its wall time "+
			"is more than %d standard errors above zero, so no process saw an idle machine. "+
			"Steal flags a cell only by its effect; every cell's load is a number, not a verdict.",
			BusyMinProcesses, BusyAlpha, BusyMinRatio,
			100*SaturatedShare, MinIntervalProcesses, 100*TrimFraction, 100*SaturatedShare, SaturatedStandardErrors),
	}
	UnstableRule = Rule{
		Name:    "unstable",
		Summary: "a judged cell is unstable only on evidence at the level of processes: they drifted over the run, or they fall into two clusters",
		Definition: fmt.Sprintf("A judged cell is unstable when its processes say its figure depends on when or how it was measured. "+
			"They drifted over the run: in the order they started, the later half's typical spawns differ from the earlier half's "+
			"(Mann–Whitney p < %g, with %d processes or more in each half; a figure over occasions is not tested, "+
			"its interval holding what moves between them). "+
			"Or they fall into two clusters: the best split of their log typical spawns into a lower and an upper group, "+
			"each of at least %.0f%% of them and two, explains more of the variance than a single skewed peak does "+
			"in all but %.0f%% of cells of as many processes, and the two groups' figures are at least %.2g× apart. "+
			"No test treats the spawns of one process as independent.",
			DriftAlpha, DriftBatchProcesses, 100*ClusterMinShare, 100*ClusterAlpha, ClusterMinRatio),
	}
	NotJudgedRule = Rule{
		Name:    "not judged",
		Summary: fmt.Sprintf("a cell of fewer than %d processes is not judged: it has no interval and no verdict", MinIntervalProcesses),
		Definition: fmt.Sprintf("A cell of fewer than %d processes (ended ok, with spawns in the view) is not judged: "+
			"it has no interval and no verdict of stability, its figure reads \"not judged: k processes\" rather than a blank that reads as stable, "+
			"and a ratio with it has no interval.", MinIntervalProcesses),
	}
	PrecisionRule = Rule{
		Name: "precision",
		Summary: fmt.Sprintf("precision is a number, not a verdict: the %.0f%% interval's half-width over the figure, "+
			"and about how many processes a target precision would take", 100*Confidence),
		Definition: fmt.Sprintf("A cell's precision is its %.0f%% interval's half-width over its figure, "+
			"given with the processes behind it: a number, never a verdict. "+
			"Against a target precision, the cell's own spread says about how many processes it would take to reach it; "+
			"nothing is said where a drift's batches or the occasions set the interval, which more processes do not narrow.",
			100*Confidence),
	}
)

// ClockRule says which cells a clock's untrusted samples can touch
// (ClockCouldMove applies it): a clock verdict names those, not the
// whole environment, since a handful of flagged spawns among thousands
// moves no figure.
var ClockRule = Rule{
	Name: "clock",
	Summary: "untrusted clock samples mark only the cells whose figure they could move outside its interval; " +
		"a failed calibration check marks every cell of its environment",
	Definition: fmt.Sprintf("A sample whose clock failed its check (clock_trusted = false) could move its cell's figure "+
		"when the processes that hold such samples, dropped, or each set to the lowest or to the highest typical spawn among the cell's processes, "+
		"would put the figure outside its %.0f%% interval; a cell of fewer than %d processes, which has no interval, could move whenever it holds one. "+
		"Those cells are marked † and named in the clock warning; the environment's other cells stand as measured. "+
		"A failed calibration check (sleep or coherence) says the clock itself is off and marks every cell of its environment.",
		100*Confidence, MinIntervalProcesses),
}

// Rules are the verdicts' rules, in the order reports explain them.
var Rules = []Rule{BusyRule, UnstableRule, NotJudgedRule, PrecisionRule, ClockRule}
