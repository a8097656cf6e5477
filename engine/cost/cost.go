// Package cost says how long a plan will take: the expected wall time of
// each process, from the wall times an earlier result set measured.
//
// Its opinion: what a process costs is its environment's start-up plus
// its spawns, which the process count alone cannot tell (a browser
// process takes seconds, a native one milliseconds), so costs are
// measured, never guessed from the plan. A cell's cost is looked up by
// what the cell carries (environment kind, name, mode and n) in one
// function, keyOf; n between measured ones is interpolated. Without an
// earlier set, the committed reference set's costs (reference.json, kept
// equal to results/reference by a test) are used. Estimates are integer
// nanoseconds so that every machine computes the same shards.
package cost

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// Point is the median wall time of one process of a (kind, environment,
// mode) at one n, as measured. Environment "" pools every environment of
// the kind, Kind "" every kind.
type Point struct {
	Kind        string `json:"kind"`
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	N           int    `json:"n"`
	// Processes is the number of processes the median is of.
	Processes int `json:"processes"`
	// WallNS is their median wall time, measured outside the process (the
	// pause before it excluded).
	WallNS int64 `json:"wall_ns"`
}

// key is what a cost is looked up by: one curve over n.
type key struct{ kind, env, mode string }

// Model holds measured curves of wall time over n.
type Model struct {
	// Source says where the costs come from, for messages.
	Source string
	Points []Point
	curves map[key][]Point // sorted by N
	id     string
}

//go:embed reference.json
var referenceJSON []byte

// ReferenceDir is the committed set the built-in costs are measured from,
// relative to the repository.
const ReferenceDir = "results/reference"

// Reference is the model of the committed reference set, built in.
func Reference() *Model {
	var pts []Point
	if err := json.Unmarshal(referenceJSON, &pts); err != nil {
		panic(fmt.Sprintf("cost: the built-in reference.json does not parse: %v", err))
	}
	return newModel(ReferenceDir+" (built in)", pts)
}

// Load reads the costs from the result set in dir (--costs DIR).
func Load(dir string) (*Model, error) {
	if !results.Exists(dir) {
		return nil, inputerr.New("--costs %s: no result set there; give the directory of an earlier run, e.g. %s", dir, ReferenceDir)
	}
	set, err := results.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("--costs %s: %w", dir, err)
	}
	m := FromRuns(dir, set.Runs)
	if len(m.Points) == 0 {
		return nil, inputerr.New("--costs %s: the set has no process with a wall time; give a set that ran processes", dir)
	}
	return m, nil
}

// FromRuns measures the curves of runs: per (kind, environment, mode, n),
// per (kind, mode, n) and per (mode, n), the median wall time of a
// process, warm-ups and failed processes included (they take time too).
func FromRuns(source string, runs []results.ProcessRun) *Model {
	type at struct {
		key
		n int
	}
	walls := map[at][]float64{}
	for _, r := range runs {
		if r.WallNS <= 0 {
			continue // never started: no wall time
		}
		for _, k := range []key{{r.Kind, r.Environment, r.Mode}, {r.Kind, "", r.Mode}, {"", "", r.Mode}} {
			a := at{k, int(r.N)}
			walls[a] = append(walls[a], float64(r.WallNS))
		}
	}
	var pts []Point
	for a, w := range walls {
		pts = append(pts, Point{Kind: a.kind, Environment: a.env, Mode: a.mode, N: a.n, Processes: len(w), WallNS: int64(stats.Median(w))})
	}
	sort.Slice(pts, func(i, j int) bool {
		a, b := pts[i], pts[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Environment != b.Environment {
			return a.Environment < b.Environment
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		return a.N < b.N
	})
	return newModel(source, pts)
}

func newModel(source string, pts []Point) *Model {
	b, _ := json.Marshal(pts) // plain structs: cannot fail
	sum := sha256.Sum256(b)
	m := &Model{Source: source, Points: pts, curves: map[key][]Point{}, id: hex.EncodeToString(sum[:6])}
	for _, p := range pts {
		k := key{p.Kind, p.Environment, p.Mode}
		m.curves[k] = append(m.curves[k], p)
	}
	for _, c := range m.curves {
		slices.SortFunc(c, func(a, b Point) int { return a.N - b.N })
	}
	return m
}

// ID identifies the model by its points (a short SHA-256): two models
// with one ID split every plan alike.
func (m *Model) ID() string { return m.id }

// keyOf is the one place that says what a cell's cost depends on: its
// environment (by name within its kind), else its kind, else any kind,
// in its mode. A key by host would replace this function alone.
func keyOf(c spec.Cell) []key {
	return []key{{c.Env.Kind, c.Env.Name, c.Mode}, {c.Env.Kind, "", c.Mode}, {"", "", c.Mode}}
}

// Basis names what a cell's estimate rests on: "environment", "kind",
// "other kinds" (its kind was never measured) or "" (nothing in its mode).
func (m *Model) Basis(c spec.Cell) string {
	for i, k := range keyOf(c) {
		if len(m.curves[k]) > 0 {
			return []string{"environment", "kind", "other kinds"}[i]
		}
	}
	return ""
}

// Unknown is the wall time assumed for a process nothing is known about
// (a mode no earlier set ran): a browser's start, on the safe side.
const Unknown = 3 * time.Second

// Process is the expected wall time of one of the cell's processes,
// including the pause before it, and at most its timeout.
func (m *Model) Process(c spec.Cell) time.Duration {
	wall := Unknown
	for _, k := range keyOf(c) {
		if curve := m.curves[k]; len(curve) > 0 {
			wall = time.Duration(at(curve, c.N))
			break
		}
	}
	if c.Timeout > 0 {
		wall = min(wall, c.Timeout)
	}
	return c.Pause + wall
}

// Cell is the expected wall time of all the cell's processes, warm-ups
// included.
func (m *Model) Cell(c spec.Cell) time.Duration {
	return time.Duration(c.Total()) * m.Process(c)
}

// Plan is the expected wall time of every process of the plan (builds
// not included).
func (m *Model) Plan(p *spec.RunPlan) time.Duration {
	var total time.Duration
	for _, c := range p.Cells {
		total += m.Cell(c)
	}
	return total
}

// at is the curve's wall time at n: measured, linear between the measured
// n around it, the first below, extrapolated from the last two above (a
// process's cost grows about linearly in its spawns); never below the
// smallest measured.
func at(curve []Point, n int) int64 {
	lo := curve[0].WallNS
	for _, p := range curve {
		lo = min(lo, p.WallNS)
	}
	i := sort.Search(len(curve), func(i int) bool { return curve[i].N >= n })
	switch {
	case i < len(curve) && curve[i].N == n:
		return curve[i].WallNS
	case i == 0:
		return curve[0].WallNS
	case i == len(curve) && len(curve) == 1:
		return curve[0].WallNS
	case i == len(curve):
		i-- // extrapolate from the last two
	}
	a, b := curve[i-1], curve[i]
	v := a.WallNS + (b.WallNS-a.WallNS)*int64(n-a.N)/int64(b.N-a.N)
	return max(v, lo)
}

// Round shortens an expected duration for people: milliseconds below a
// second, tenths of a second below a minute, whole seconds above.
func Round(d time.Duration) time.Duration {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond)
	case d < time.Minute:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
