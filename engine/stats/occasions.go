package stats

import (
	"math"
	"slices"
	"sort"
	"sync"
)

// Occasions are the top level of repetition: runs on different days, or
// blocks of one run far apart in time (run --occasions K). Processes of
// one occasion share the machine's state of the moment (its frequency, its
// caches, its other tenants), so they are no more independent of the
// next occasion than spawns of one process are of each other: two
// back-to-back runs moved 28 of 32 figures the same way, by a median of
// 12%, where each run's intervals over processes allowed a few percent.
// With MinOccasions or more, a cell's figure and interval are therefore
// computed over occasions (each occasion's figure the trimmed mean of its
// processes' logs, then Yuen's interval over those figures, Student's t on
// occasions − 1 degrees of freedom), and a ratio of two cells measured on
// the same occasions is formed within each occasion, then combined, so
// that what moves a whole occasion cancels (Kalibera and Jones, "Rigorous
// Benchmarking in Reasonable Time", ISMM 2013, treat executions and
// iterations the same way).
const MinOccasions = 3

// occasionFigures are a cell's figures by occasion: the trimmed mean of
// each occasion's log process values; nil with fewer than MinOccasions
// occasions (occasion 0, unknown, counts as one).
func occasionFigures(procs []Process, logs []float64) map[int]float64 {
	seen := map[int]bool{}
	for _, p := range procs {
		seen[p.Occasion] = true
	}
	if len(seen) < MinOccasions {
		return nil
	}
	return figuresByOccasion(procs)
}

// values are a map's values in key order.
func values(m map[int]float64) []float64 {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// pairedRatio is a / b formed within each occasion both measured, then
// combined over those occasions (Yuen's interval of the per-occasion log
// ratios, occasions − 1 degrees of freedom); not ok when they share fewer
// than MinOccasions.
func pairedRatio(a, b *Estimate, confidence float64) (ratio, low, high float64, ok bool) {
	if a.occasions == nil || b.occasions == nil {
		return 0, 0, 0, false
	}
	var diffs []float64
	for o, fa := range a.occasions {
		if fb, shared := b.occasions[o]; shared {
			diffs = append(diffs, fa-fb)
		}
	}
	if len(diffs) < MinOccasions {
		return 0, 0, 0, false
	}
	y, _ := yuenOf(diffs)
	half := tQuantileAt(y.df, confidence) * math.Sqrt(y.d)
	return math.Exp(y.tm), math.Exp(y.tm - half), math.Exp(y.tm + half), true
}

// Components split a cell's variance by level, as variances of the log
// spawn time (a standard deviation of 0.1 is about ±10%): between
// occasions, between processes of one occasion, and between spawns of
// one process. Each is NaN where the cell cannot tell it (one occasion;
// one spawn a process).
type Components struct {
	Occasion, Process, Spawn float64
	// Occasions, Processes and Spawns count the cell's occasions, its
	// processes and the mean spawns of a process.
	Occasions, Processes int
	Spawns               float64
	// Dominant names the level that contributes most to the variance of
	// the cell's figure as measured ("occasions", "processes" or
	// "spawns"): more repetitions there narrow the interval most.
	Dominant string
}

// VarianceComponents estimates a cell's components by the method of
// moments of a nested design: the spawns' variance within each process
// (Process.SpawnVar), the processes' variance around their occasion's
// mean less what their own spawns put in it, and the occasions' variance
// around the cell's mean less what their processes put in it.
func VarianceComponents(procs []Process) Components {
	c := Components{Occasion: math.NaN(), Process: math.NaN(), Spawn: math.NaN(), Processes: len(procs)}
	if len(procs) < 2 {
		return c
	}
	logs := logsOf(procs)
	by := map[int][]float64{}
	var spawnVar, spawnShare, spawns float64
	known := 0
	for i, p := range procs {
		by[p.Occasion] = append(by[p.Occasion], logs[i])
		spawns += float64(max(p.Spawns, 1))
		if p.Spawns >= 2 && !math.IsNaN(p.SpawnVar) {
			spawnVar += p.SpawnVar
			spawnShare += p.SpawnVar / float64(p.Spawns)
			known++
		}
	}
	c.Occasions, c.Spawns = len(by), spawns/float64(len(procs))
	inProcess := 0.0 // what spawns add to a process's variance
	if known > 0 {
		c.Spawn = spawnVar / float64(known)
		inProcess = spawnShare / float64(known)
	}
	// Pooled variance of processes around their occasion's mean.
	var means []float64
	var pooled float64
	df := 0
	harmonic := 0.0
	for _, v := range by {
		m := 0.0
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		means = append(means, m)
		for _, x := range v {
			pooled += (x - m) * (x - m)
		}
		df += len(v) - 1
		harmonic += 1 / float64(len(v))
	}
	if df > 0 {
		pooled /= float64(df)
		c.Process = max(0, pooled-inProcess)
	}
	if len(means) >= 2 && df > 0 {
		m := float64(len(means)) / harmonic
		c.Occasion = max(0, varianceOf(means)-pooled/m)
	}
	// Contributions to the variance of the figure as measured.
	k, perOccasion := float64(max(c.Occasions, 1)), float64(len(procs))/float64(max(c.Occasions, 1))
	contrib := map[string]float64{
		"occasions": nanZero(c.Occasion) / k,
		"processes": nanZero(c.Process) / (k * perOccasion),
		"spawns":    nanZero(c.Spawn) / (k * perOccasion * c.Spawns),
	}
	best := -1.0
	for _, level := range []string{"occasions", "processes", "spawns"} {
		if contrib[level] > best {
			best, c.Dominant = contrib[level], level
		}
	}
	return c
}

func varianceOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s / float64(len(v)-1)
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// Design is a number of occasions and of processes per occasion for one
// cell, with the precision it should reach and what it costs.
type Design struct {
	Occasions, Processes int
	// Precision is the relative half-width the design's interval should
	// have, from the components it was made for.
	Precision float64
	// Cost is Occasions × (occasion cost + Processes × process cost), in
	// the costs' unit.
	Cost float64
}

// DesignFor is the cheapest design whose interval over occasions reaches
// target (a relative half-width), after Kalibera and Jones. With the
// between-occasion variance σo², the variance one process brings σp²
// (between processes, plus its spawns' variance over their count) and the
// costs of an occasion co and of a process cp, k occasions of m processes
// have a log-scale variance σo²/k + σp²/(k·m) and cost k·(co + m·cp); for
// each k from MinOccasions to maxOccasions the fewest m that reach the
// target (Student's t on k − 1 degrees of freedom) is found in closed
// form, and the cheapest (k, m) is the design. Kalibera and Jones' m* =
// √(σp²·co / (σo²·cp)) is where the continuous optimum lies. A component
// that is NaN (unknown) counts as none. ok is false when no design of up
// to maxOccasions occasions reaches the target.
func DesignFor(c Components, occasionCost, processCost, target float64, maxOccasions int) (Design, bool) {
	so := nanZero(c.Occasion)
	sp := nanZero(c.Process) + nanZero(c.Spawn)/math.Max(c.Spawns, 1)
	want := math.Asinh(target) // precision = sinh(half) on the log scale
	var best Design
	found := false
	for k := MinOccasions; k <= maxOccasions; k++ {
		t := tQuantileOfInt(k - 1)
		room := math.Pow(want/t, 2) - so/float64(k)
		if room <= 0 {
			continue // the occasions alone are too wide at this k
		}
		m := 1
		if sp > 0 {
			m = max(1, int(math.Ceil(sp/(float64(k)*room)*(1-1e-12))))
		}
		d := Design{Occasions: k, Processes: m, Cost: float64(k) * (occasionCost + float64(m)*processCost),
			Precision: math.Sinh(t * math.Sqrt(so/float64(k)+sp/float64(k*m)))}
		if !found || d.Cost < best.Cost {
			best, found = d, true
		}
	}
	return best, found
}

// tQuantiles holds tQuantile at whole degrees of freedom, filled as far
// as asked: a design tries up to a thousand occasions for every cell, and
// each quantile is a numerical inversion of the t distribution's CDF.
var tQuantiles struct {
	sync.Mutex
	byDF []float64
}

// tQuantileOfInt is tQuantile(df) for a whole df, each computed once.
func tQuantileOfInt(df int) float64 {
	tQuantiles.Lock()
	defer tQuantiles.Unlock()
	for len(tQuantiles.byDF) <= df {
		tQuantiles.byDF = append(tQuantiles.byDF, tQuantile(float64(len(tQuantiles.byDF))))
	}
	return tQuantiles.byDF[df]
}

// OccasionRatios are a / b formed within each occasion both sides
// measured, in occasion order: how far a ratio moves from one occasion
// (one run of several merged with merge --occasions, or one block of
// run --occasions) to the next, beside the interval over all of them.
// Nil with fewer than two shared occasions.
func OccasionRatios(a, b []Process) []float64 {
	fa, fb := figuresByOccasion(a), figuresByOccasion(b)
	var shared []int
	for o := range fa {
		if _, ok := fb[o]; ok {
			shared = append(shared, o)
		}
	}
	if len(shared) < 2 {
		return nil
	}
	sort.Ints(shared)
	out := make([]float64, len(shared))
	for i, o := range shared {
		out[i] = math.Exp(fa[o] - fb[o])
	}
	return out
}

// figuresByOccasion is each occasion's figure, as the log of the 20%
// trimmed mean of its processes' logs.
func figuresByOccasion(procs []Process) map[int]float64 {
	logs := logsOf(procs)
	by := map[int][]float64{}
	for i, p := range procs {
		by[p.Occasion] = append(by[p.Occasion], logs[i])
	}
	out := make(map[int]float64, len(by))
	for o, v := range by {
		slices.Sort(v)
		out[o] = trimmedMeanSorted(v)
	}
	return out
}

// SDs are the components as standard deviations of the log spawn time
// (0.1 is about ±10%), NaN where unknown.
func (c Components) SDs() (occasion, process, spawn float64) {
	return math.Sqrt(c.Occasion), math.Sqrt(c.Process), math.Sqrt(c.Spawn)
}
