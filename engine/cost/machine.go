package cost

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// Machine is what this machine measured, to rescale a model measured
// elsewhere by (Model.On): the ratios of its wall times to the model's for
// the cells both have, curves of its own, and the warm browser pages it
// measured, from which what a warm start saves each browser follows. It
// comes from the result sets measured here (Here) or from a short probe
// of the machine (engine/run's), kept as JSON for a while.
type Machine struct {
	// Source says what was measured, for messages.
	Source string `json:"source"`
	// Ratios are this machine's wall time over the model's, one per
	// compared cell or process.
	Ratios []float64 `json:"ratios"`
	// Points are curves measured here; they replace the model's.
	Points []Point `json:"points,omitempty"`
	// Warm are warm browser pages at n = 1 measured here.
	Warm []WarmPage `json:"warm,omitempty"`
	// ID is the machine's (results.Machine.ID), Model the ID of the model
	// the ratios are to, and At when it was measured: a saved probe is
	// used again only by the same machine and model, while fresh.
	ID    string    `json:"machine"`
	Model string    `json:"model"`
	At    time.Time `json:"at"`
}

// WarmPage is the median wall time of a warm browser's page of a kind at
// n = 1, measured here.
type WarmPage struct {
	Kind   string `json:"kind"`
	Host   string `json:"host"`
	Mode   string `json:"mode"`
	WallNS int64  `json:"wall_ns"`
}

// Factor is the machine's rescaling of the model: the median of the
// ratios, and as its range their smallest and largest (their 10th and
// 90th percentiles from ten ratios on, past a stray one): cells of
// different hosts rescale differently, and the truth for a whole plan is
// likely between all of them rescaling as the least and as the most
// rescaled did. 1 when nothing was compared.
func (mc *Machine) Factor() (f, lo, hi float64) {
	if mc == nil || len(mc.Ratios) == 0 {
		return 1, 1, 1
	}
	r := slices.Clone(mc.Ratios)
	sort.Float64s(r)
	if len(r) < 10 {
		return quantile(r, 0.5), r[0], r[len(r)-1]
	}
	return quantile(r, 0.5), quantile(r, 0.1), quantile(r, 0.9)
}

// quantile of sorted xs, linear between order statistics.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// On is the model rescaled to the machine: its own curves where it
// measured them, the model's times the machine's factor elsewhere, and,
// per browser host whose warm page it measured, what a warm start saves
// a page: the host's cold page of that kind at n = 1 less its warm one.
// A nil machine leaves the model as it is.
func (m *Model) On(mc *Machine) *Model {
	f, _, _ := mc.Factor()
	return m.scaled(mc, f)
}

func (m *Model) scaled(mc *Machine, f float64) *Model {
	if mc == nil {
		return m
	}
	type at struct {
		key
		n int
	}
	own := map[at]bool{}
	pts := slices.Clone(mc.Points)
	for _, p := range mc.Points {
		own[at{key{p.Kind, p.Environment, p.Mode, p.Start}, p.N}] = true
	}
	for _, p := range m.Points {
		if !own[at{key{p.Kind, p.Environment, p.Mode, p.Start}, p.N}] {
			p.WallNS = int64(float64(p.WallNS) * f)
			pts = append(pts, p)
		}
	}
	s := newModel(fmt.Sprintf("%s, rescaled ×%.2f to this machine by %s", m.Source, f, mc.Source), pts)
	s.machine, s.base = mc, m
	s.saving, s.warmFloor = map[string]int64{}, map[string]int64{}
	savings := map[string][]float64{}
	for _, w := range mc.Warm {
		curve := s.curves[key{w.Kind, "", w.Mode, hostfacts.Cold}]
		if !serves(curve, 1) {
			continue
		}
		if saved := at1(curve) - w.WallNS; saved > 0 {
			savings[w.Host] = append(savings[w.Host], float64(saved))
		}
		if fl, ok := s.warmFloor[w.Host]; !ok || w.WallNS < fl {
			s.warmFloor[w.Host] = w.WallNS
		}
	}
	for host, v := range savings {
		s.saving[host] = int64(stats.Median(v))
	}
	return s
}

// at1 is a curve's wall time at n = 1.
func at1(curve []Point) int64 { return at(curve, 1) }

// Machine is what the model was rescaled by; nil for a model as measured.
func (m *Model) Machine() *Machine { return m.machine }

// Range is the plan's expected time at the low and high ends of the
// machine's factor (Machine.Factor); both are Plan for a model as
// measured. It says how far the machine's own measurements disagree,
// not how far a run can stray from them.
func (m *Model) Range(p *spec.RunPlan) (lo, hi time.Duration) {
	if m.machine == nil {
		t := m.Plan(p)
		return t, t
	}
	_, flo, fhi := m.machine.Factor()
	return m.base.scaled(m.machine, flo).Plan(p), m.base.scaled(m.machine, fhi).Plan(p)
}

// Here is what result sets measured on the machine id, from their cost
// summaries' cells (other machines' cells, merged in, are left out):
// their curves, their ratios to base for every cell both have, and their
// warm browser pages. sets names the sets the cells come from, for
// messages. Nil when no cell is of this machine.
func Here(id string, base *Model, sets []string, cells []results.CellCost) *Machine {
	var mine []results.CellCost
	processes := 0
	hosts := map[string]string{}
	for _, c := range cells {
		if c.Machine == id && c.Processes > 0 {
			mine = append(mine, c)
			processes += c.Processes
			hosts[c.Kind] = c.Host
		}
	}
	if len(mine) == 0 {
		return nil
	}
	local := FromCosts("", mine)
	mc := &Machine{
		Source: fmt.Sprintf("%d result set(s) measured here (%s: %d processes)", len(sets), strings.Join(sets, ", "), processes),
		Points: local.Points, ID: id, Model: base.ID(),
	}
	for _, p := range local.Points {
		if p.Environment == "" {
			continue // compare cells, not pools
		}
		for _, q := range base.curves[key{p.Kind, p.Environment, p.Mode, p.Start}] {
			if q.N == p.N && q.WallNS > 0 {
				mc.Ratios = append(mc.Ratios, float64(p.WallNS)/float64(q.WallNS))
			}
		}
	}
	for _, p := range local.Points {
		if p.Environment == "" && p.Kind != "" && p.Start == hostfacts.Warm && p.N == 1 {
			mc.Warm = append(mc.Warm, WarmPage{Kind: p.Kind, Host: hosts[p.Kind], Mode: p.Mode, WallNS: p.WallNS})
		}
	}
	return mc
}

// HasWarm is true when the machine measured a warm page of every
// browser host of hosts.
func (mc *Machine) HasWarm(hosts []string) bool {
	for _, h := range hosts {
		if !slices.ContainsFunc(mc.Warm, func(w WarmPage) bool { return w.Host == h }) {
			return false
		}
	}
	return true
}

// WarmHosts are the browser hosts that start warm in the plan.
func WarmHosts(p *spec.RunPlan) []string {
	var hosts []string
	for _, c := range p.Cells {
		if startOfCell(c) == hostfacts.Warm && !slices.Contains(hosts, c.Env.Host) {
			hosts = append(hosts, c.Env.Host)
		}
	}
	slices.Sort(hosts)
	return hosts
}
