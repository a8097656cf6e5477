package cost

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"spawnbench/engine/buildcache"
	"spawnbench/engine/env"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// The probe: a few seconds of processes that say how this machine
// compares with the one a model was measured on. Its environments are
// shipped ones, by their names, so the model has their curves: the raw
// workers, which need no compiler, at sequential n = 1. A Node.js process
// (manual-node, about 0.1 s; native where Node.js is missing) stands for
// every host that starts a process; for each browser host the plan
// starts warm, a cold Chromium page says how its start compares, and
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

// WarmHosts are the browser hosts that start warm in the plan.
func WarmHosts(p *spec.RunPlan) []string {
	var hosts []string
	for _, c := range p.Cells {
		if startOfCell(c) == Warm && !slices.Contains(hosts, c.Env.Host) {
			hosts = append(hosts, c.Env.Host)
		}
	}
	slices.Sort(hosts)
	return hosts
}

// Probe measures this machine (id) against base for the plan: a few
// processes of a cheap environment, and of the plan's warm browser hosts
// (about 2 s for Chromium, 5 s for Firefox, which starts slowly). Each
// line it prints to log says what it ran.
func Probe(ctx context.Context, base *Model, p *spec.RunPlan, cache *buildcache.Cache, id string, log io.Writer) (*Machine, error) {
	s, err := spec.Parse("probe.cue", []byte(probeSpec))
	if err != nil {
		return nil, fmt.Errorf("the probe's spec: %w", err)
	}
	envs := map[string]spec.EnvironmentSpec{}
	for _, e := range s.Environments {
		envs[e.Name] = e
	}
	begun := time.Now()
	mc := &Machine{ID: id, Model: base.ID()}
	var ran []string
	probe := func(name string, processes int) ([]time.Duration, error) {
		es := envs[name]
		e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		if tc := e.Toolchain(ctx); !tc.Present {
			return nil, fmt.Errorf("%s: %s", name, tc.Problem)
		}
		dir, _, err := cache.Build(ctx, e)
		if err == nil {
			dir, err = e.Stage(ctx, dir)
		}
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", name, err)
		}
		// The first process of each is not counted: it reads the
		// runtime's files from disk (and a warm browser's starts the
		// browser), which the model's processes, a few of thousands, did
		// not.
		var walls []time.Duration
		for i := range processes + 1 {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			out, err := e.Run(rctx, env.Repetition{Benchmark: env.Sequential, Arg: 1, BuildDir: dir})
			cancel()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if out.ExitCode != 0 || out.TimedOut || out.Signal != "" {
				return nil, fmt.Errorf("%s: exit %d, signal %q, timed out %v: %s", name, out.ExitCode, out.Signal, out.TimedOut, firstLine(string(out.Stderr)))
			}
			if i > 0 {
				walls = append(walls, out.Wall)
			}
		}
		ran = append(ran, fmt.Sprintf("%d %s", len(walls), name))
		if log != nil {
			fmt.Fprintf(log, "probe: %s sequential n=1: %s\n", name, durations(walls))
		}
		return walls, nil
	}
	ratio := func(name string, walls []time.Duration) {
		es := envs[name]
		c := spec.Cell{Env: es, Mode: string(env.Sequential), N: 1}
		if m, basis := base.lookup(c); basis == "environment" && m > 0 {
			for _, w := range walls {
				mc.Ratios = append(mc.Ratios, float64(w)/float64(m))
			}
			if log != nil {
				fmt.Fprintf(log, "probe: %s's model cost %s\n", name, Round(m))
			}
		}
	}
	skipped := func(host string, err error) {
		if log != nil {
			fmt.Fprintf(log, "probe: %v; %s's warm pages keep the model's cold estimate\n", err, host)
		}
	}
	walls, err := probe("manual-node", probeProcesses)
	name := "manual-node"
	if err != nil {
		if log != nil {
			fmt.Fprintf(log, "probe: %v; native instead\n", err)
		}
		name = "native"
		if walls, err = probe(name, probeProcesses); err != nil {
			return nil, err
		}
	}
	ratio(name, walls)
	for _, host := range WarmHosts(p) {
		pages, ok := probePages[host]
		if !ok {
			continue // a host the probe does not know: its cells keep the cold estimate
		}
		warmName, coldName := pages[0], pages[1]
		// A browser the probe cannot run (missing, say: run skips it
		// too) leaves its cells the model's cold estimate.
		if coldName != "" {
			walls, err := probe(coldName, 1)
			if err != nil {
				skipped(host, err)
				continue
			}
			ratio(coldName, walls)
		}
		walls, err := probe(warmName, probeProcesses)
		if err != nil {
			skipped(host, err)
			continue
		}
		w := make([]float64, len(walls))
		for i, d := range walls {
			w[i] = float64(d)
		}
		es := envs[warmName]
		mc.Warm = append(mc.Warm, WarmPage{Kind: es.Kind, Host: host, Mode: string(env.Sequential), WallNS: int64(stats.Median(w))})
	}
	mc.At = time.Now().UTC()
	mc.Source = fmt.Sprintf("a probe of this machine (%s processes in %s)", strings.Join(ran, ", "), Round(time.Since(begun)))
	return mc, nil
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = Round(d).String()
	}
	return strings.Join(parts, " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
