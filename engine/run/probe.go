package run

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"spawnbench/engine/buildcache"
	"spawnbench/engine/cost"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// The probe: a few seconds of processes that say how this machine
// compares with the one a cost model was measured on. It is a small run
// of its own spec, prepared and run as every run is (Runner.prepare,
// runOne, classify), by a runner that records nothing. Its environments
// are shipped ones, by their names, so the model has their curves: the
// raw workers, which need no compiler, at sequential n = 1. A Node.js
// process (manual-node, about 0.1 s; native where Node.js is missing)
// stands for every host that starts a process; for each browser host the
// plan starts warm, a cold Chromium page says how its start compares, and
// warm pages (after the browser's own start) say what a warm page costs
// here, so what a warm start saves.
const probeSpec = `
environments: [
	{name: "manual-node", kind: "manual-node"},
	{name: "native", kind: "native"},
	{name: "manual", kind: "manual"},
	{name: "manual-cold", kind: "manual", browser_start: "cold"},
	{name: "manual-firefox", kind: "manual-firefox"},
]
modes: ["sequential"]
n: [1]
`

// probePages are, per browser host, the probe's warm environment and its
// cold twin ("": none, Firefox's cold start costs seconds).
var probePages = map[string][2]string{"chromium": {"manual", "manual-cold"}, "firefox": {"manual-firefox", ""}}

// probeProcesses are the processes of each probe environment counted,
// after one that is not.
const probeProcesses = 3

// probePlan is the probe's spec, expanded.
func probePlan() (*spec.RunPlan, error) {
	s, err := spec.Parse("probe.cue", []byte(probeSpec))
	if err != nil {
		return nil, fmt.Errorf("the probe's spec: %w", err)
	}
	plan, err := spec.Expand(s, nil)
	if err != nil {
		return nil, fmt.Errorf("the probe's spec: %w", err)
	}
	return plan, nil
}

// probe measures this machine (id) against base for the plan: a few
// processes of a cheap environment, and of the plan's warm browser hosts
// (about 2 s for Chromium, 5 s for Firefox, which starts slowly). Each
// line it prints to log says what it ran.
func probe(ctx context.Context, base *cost.Model, p *spec.RunPlan, cache *buildcache.Cache, id string, log io.Writer) (*cost.Machine, error) {
	plan, err := probePlan()
	if err != nil {
		return nil, err
	}
	cells, specCells := map[string]cell{}, map[string]spec.Cell{}
	for i, c := range cellsOf(plan) {
		cells[c.env.Name], specCells[c.env.Name] = c, plan.Cells[i]
	}
	logf := func(format string, args ...any) {
		if log != nil {
			fmt.Fprintf(log, "probe: "+format+"\n", args...)
		}
	}
	r := &Runner{opts: Options{Cache: cache}} // no writer: it records nothing
	begun := time.Now()
	mc := &cost.Machine{ID: id, Model: base.ID()}
	var ran []string
	measure := func(name string, processes int) ([]time.Duration, error) {
		c := cells[name]
		prep, err := r.prepare(ctx, c.env)
		if prep.env != nil {
			defer prep.env.Close()
		}
		if err != nil {
			return nil, err
		}
		if prep.skip != "" {
			return nil, fmt.Errorf("%s: %s", name, prep.skip)
		}
		// The first process of each is not counted: it reads the
		// runtime's files from disk (and a warm browser's starts the
		// browser), which the model's processes, a few of thousands, did
		// not.
		var walls []time.Duration
		for i := range processes + 1 {
			lines := protocol.NewCollector(c.n)
			out, err := r.runOne(ctx, prep, c, c.bench, c.arg, lines)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if status, msg := classify(out, lines, c.n); status != results.StatusOK {
				return nil, fmt.Errorf("%s: %s: %s", name, status, firstLine(msg))
			}
			if i > 0 {
				walls = append(walls, out.Wall)
			}
		}
		ran = append(ran, fmt.Sprintf("%d %s", len(walls), name))
		logf("%s sequential n=1: %s", name, durations(walls))
		return walls, nil
	}
	ratio := func(name string, walls []time.Duration) {
		c := specCells[name]
		if r := probeRatios(base, c, walls); len(r) > 0 {
			mc.Ratios = append(mc.Ratios, r...)
			logf("%s's model cost %s", name, cost.Round(base.Wall(c)))
		}
	}
	name := "manual-node"
	walls, err := measure(name, probeProcesses)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		logf("%v; native instead", err)
		name = "native"
		if walls, err = measure(name, probeProcesses); err != nil {
			return nil, err
		}
	}
	ratio(name, walls)
	for _, host := range cost.WarmHosts(p) {
		pages, ok := probePages[host]
		if !ok {
			continue // a host the probe does not know: its cells keep the cold estimate
		}
		warmName, coldName := pages[0], pages[1]
		// A browser the probe cannot run (missing, say: run skips it
		// too) leaves its cells the model's cold estimate.
		if coldName != "" {
			walls, err := measure(coldName, 1)
			if err != nil {
				logf("%v; %s's warm pages keep the model's cold estimate", err, host)
				continue
			}
			ratio(coldName, walls)
		}
		walls, err := measure(warmName, probeProcesses)
		if err != nil {
			logf("%v; %s's warm pages keep the model's cold estimate", err, host)
			continue
		}
		w := make([]float64, len(walls))
		for i, d := range walls {
			w[i] = float64(d)
		}
		c := cells[warmName]
		mc.Warm = append(mc.Warm, cost.WarmPage{Kind: c.env.Kind, Host: host, Mode: c.mode, WallNS: int64(stats.Median(w))})
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	mc.At = time.Now().UTC()
	mc.Source = fmt.Sprintf("a probe of this machine (%s processes in %s)", strings.Join(ran, ", "), cost.Round(time.Since(begun)))
	return mc, nil
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = cost.Round(d).String()
	}
	return strings.Join(parts, " ")
}

// probeRatios are a probe cell's processes' wall times over the model's
// wall time for the cell, where the model measured its environment. Wall
// times against wall times: the pause, settle window and runner's work
// that Model.Process adds happen outside a process's wall time (counting
// them made a 0.09 s Node.js process read as 0.6 of the model's on a
// machine where it was 0.9).
func probeRatios(base *cost.Model, c spec.Cell, walls []time.Duration) []float64 {
	m := base.Wall(c)
	if base.Basis(c) != "environment" || m <= 0 {
		return nil
	}
	ratios := make([]float64, len(walls))
	for i, w := range walls {
		ratios[i] = float64(w) / float64(m)
	}
	return ratios
}
