package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// nested draws one cell of a nested design: k occasions of m processes of
// s spawns, log spawn = level + occasion + process + spawn, each a normal
// of its standard deviation; shared holds the occasion effects, so two
// cells drawn with the same shared effects moved together.
type nested struct {
	level, sigmaOccasion, sigmaProcess, sigmaSpawn float64
	occasions, processes, spawns                   int
}

func (n nested) draw(rng *rand.Rand, shared []float64) []Process {
	var out []Process
	for o := range n.occasions {
		for range n.processes {
			p := n.level + shared[o] + n.sigmaProcess*rng.NormFloat64()
			spawns := make([]float64, n.spawns)
			var sum, sum2 float64
			for t := range spawns {
				l := p + n.sigmaSpawn*rng.NormFloat64()
				spawns[t] = math.Exp(l)
				sum, sum2 = sum+l, sum2+l*l
			}
			mean := sum / float64(n.spawns)
			out = append(out, Process{Value: Typical(spawns), Occasion: o + 1, Spawns: n.spawns,
				SpawnVar: (sum2 - float64(n.spawns)*mean*mean) / float64(n.spawns-1)})
		}
	}
	return out
}

func (n nested) occasionEffects(rng *rand.Rand) []float64 {
	out := make([]float64, n.occasions)
	for i := range out {
		out[i] = n.sigmaOccasion * rng.NormFloat64()
	}
	return out
}

func TestVarianceComponentsAreRecovered(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := nested{level: math.Log(30), sigmaOccasion: 0.15, sigmaProcess: 0.2, sigmaSpawn: 0.1, occasions: 300, processes: 8, spawns: 50}
	c := VarianceComponents(n.draw(rng, n.occasionEffects(rng)))
	for _, level := range []struct {
		name      string
		got, want float64
	}{{"between occasions", c.Occasion, n.sigmaOccasion}, {"between processes", c.Process, n.sigmaProcess}, {"within a process", c.Spawn, n.sigmaSpawn}} {
		t.Logf("%s: standard deviation %.4f, true %.4f", level.name, math.Sqrt(level.got), level.want)
		if math.Abs(level.got/(level.want*level.want)-1) > 0.2 {
			t.Errorf("%s: variance %.5f, true %.5f: off by more than 20%%", level.name, level.got, level.want*level.want)
		}
	}
	if c.Occasions != 300 || c.Dominant != "occasions" {
		t.Errorf("%d occasions, dominant %q; want 300 and occasions", c.Occasions, c.Dominant)
	}
}

func TestRatioOverOccasionsCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	// The machine moves both environments alike from occasion to
	// occasion; the true ratio is 2.5.
	base := nested{level: math.Log(20), sigmaOccasion: 0.3, sigmaProcess: 0.2, sigmaSpawn: 0.2, occasions: 4, processes: 5, spawns: 20}
	slow := base
	slow.level += math.Log(2.5)
	const experiments = 400
	covered := 0
	for range experiments {
		shared := base.occasionEffects(rng)
		a, b := Summarize(slow.draw(rng, shared)), Summarize(base.draw(rng, shared))
		if a.Occasions != base.occasions {
			t.Fatalf("estimate over %d occasions, want %d", a.Occasions, base.occasions)
		}
		if _, lo, hi := Ratio(a, b); lo <= 2.5 && 2.5 <= hi {
			covered++
		}
	}
	rate := float64(covered) / experiments
	t.Logf("ratio over %d occasions covered the true ratio in %.1f%% of %d experiments", base.occasions, 100*rate, experiments)
	if rate < 0.93 || rate > 0.97 {
		t.Errorf("coverage %.3f, want 0.93 to 0.97", rate)
	}
}

func TestFigureOverOccasionsCoversAnotherDay(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	n := nested{level: math.Log(30), sigmaOccasion: 0.15, sigmaProcess: 0.2, sigmaSpawn: 0.1, occasions: 5, processes: 6, spawns: 30}
	// What the figure estimates over every occasion to come: the level,
	// shifted by what a trimmed mean of lognormal spawns adds, found from
	// many processes of one occasion without process effects.
	flat := n
	flat.sigmaOccasion, flat.sigmaProcess, flat.occasions, flat.processes = 0, 0, 1, 20000
	truth := summarize(flat.draw(rng, []float64{0})).Center
	covered := 0
	const experiments = 400
	for range experiments {
		if e := Summarize(n.draw(rng, n.occasionEffects(rng))); e.Low <= truth && truth <= e.High {
			covered++
		}
	}
	rate := float64(covered) / experiments
	t.Logf("the figure over %d occasions covered what every occasion to come averages in %.1f%% of %d experiments", n.occasions, 100*rate, experiments)
	if rate < 0.92 || rate > 0.98 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
}

func TestDesignIsTheCheapestThatReachesTheTarget(t *testing.T) {
	c := Components{Occasion: 0.01, Process: 0.04, Spawn: 0.02, Spawns: 100, Occasions: 5, Processes: 50}
	const co, cp, target = 30.0, 2.0, 0.05
	d, ok := DesignFor(c, co, cp, target, 200)
	if !ok {
		t.Fatal("no design")
	}
	// Brute force over every (k, m): none cheaper reaches the target.
	sp := c.Process + c.Spawn/c.Spawns
	reach := func(k, m int) float64 {
		return math.Sinh(tQuantile(float64(k-1)) * math.Sqrt(c.Occasion/float64(k)+sp/float64(k*m)))
	}
	for k := MinOccasions; k <= 200; k++ {
		for m := 1; m <= 60; m++ {
			if reach(k, m) <= target && float64(k)*(co+float64(m)*cp) < d.Cost-1e-9 {
				t.Fatalf("(%d occasions, %d processes) reaches ±%.1f%% for %.0f, cheaper than the design %+v", k, m, 100*target, float64(k)*(co+float64(m)*cp), d)
			}
		}
	}
	if d.Precision > target || reach(d.Occasions, d.Processes) != d.Precision {
		t.Errorf("design %+v does not reach ±%.1f%%", d, 100*target)
	}
	// Kalibera and Jones' continuous optimum of processes per occasion:
	// the design's count lies next to it.
	mStar := math.Sqrt(sp * co / (c.Occasion * cp))
	t.Logf("design: %d occasions × %d processes (±%.2f%%, cost %.0f); m* = %.2f", d.Occasions, d.Processes, 100*d.Precision, d.Cost, mStar)
	if math.Abs(float64(d.Processes)-mStar) > math.Max(2, mStar/2) {
		t.Errorf("%d processes per occasion, far from m* = %.2f", d.Processes, mStar)
	}
	// Occasions too wide for any count: no design.
	if _, ok := DesignFor(Components{Occasion: 1, Process: 0.01}, co, cp, 0.01, 10); ok {
		t.Error("a target out of reach gave a design")
	}
}
