package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/cost"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// LoadCosts is the cost model of the result set in dir (--costs DIR): its
// cost summary's (results.ReadCosts), as measured.
func LoadCosts(dir string) (*cost.Model, error) {
	if !results.Exists(dir) {
		return nil, inputerr.New("--costs %s: no result set there; give the directory of an earlier run, e.g. %s", dir, cost.ReferenceDir)
	}
	c, err := results.ReadCosts(dir, "")
	if err != nil {
		return nil, fmt.Errorf("--costs %s: %w", dir, err)
	}
	m := cost.FromCosts(dir, c.Cells)
	if len(m.Points) == 0 {
		return nil, inputerr.New("--costs %s: the set has no process with a wall time; give a set that ran processes", dir)
	}
	return m, nil
}

// ProbeAge is how long a probe of this machine is kept, so that run,
// after plan, expects what plan did.
const ProbeAge = time.Hour

// MachineCosts is model rescaled to this machine (cost.Model.On): by the
// result sets in sets (a directory of them, results/ for the CLI) that
// this machine measured, read through their cost summaries, or else by a
// probe: the one kept within ProbeAge (in the user's cache directory), or
// a new one, then kept. Sets here that lack a warm page of a browser the
// plan starts warm keep their curves and ratios, and the probe adds its
// pages. What it could not measure it says on log, and keeps the model.
func MachineCosts(ctx context.Context, model *cost.Model, p *spec.RunPlan, sets string, cache *buildcache.Cache, log io.Writer) *cost.Model {
	id := Machine().ID
	here, err := measuredHere(sets, id, model)
	if err != nil {
		fmt.Fprintf(log, "spawnbench: %v\n", err)
	}
	warm := cost.WarmHosts(p)
	if here != nil && len(here.Ratios) > 0 && here.HasWarm(warm) {
		return model.On(here)
	}
	file := probeFile()
	mc := keptProbe(file, id, model, warm)
	if mc == nil {
		if mc, err = probe(ctx, model, p, cache, id, log); err != nil {
			fmt.Fprintf(log, "spawnbench: could not probe this machine (%v); expected times are the model's, not rescaled\n", err)
			return model
		}
		if err := keepProbe(file, mc); err != nil {
			fmt.Fprintf(log, "spawnbench: %v\n", err)
		}
	}
	if here != nil {
		// Sets measured here, but no cell the model has or no warm page
		// of a browser the plan starts warm (without one, a warm page
		// reads as a cold one): keep their curves and, where they have
		// them, their ratios to the model; the probe adds the rest.
		mc.Points, mc.Warm = here.Points, append(mc.Warm, here.Warm...)
		if len(here.Ratios) > 0 {
			mc.Ratios = here.Ratios
			mc.Source = here.Source + " and " + mc.Source + " for its browsers"
		}
	}
	return model.On(mc)
}

// measuredHere is what the result sets in dir say of the machine id
// (cost.Here), from their cost summaries; nil when none has a process of
// it.
func measuredHere(dir, id string, base *cost.Model) (*cost.Machine, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var sets []string
	var cells []results.CellCost
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() || !results.Exists(sub) {
			continue
		}
		c, err := results.ReadCosts(sub, id)
		if err != nil || len(c.Cells) == 0 {
			continue // a damaged or foreign set says nothing of this machine's costs
		}
		sets, cells = append(sets, sub), append(cells, c.Cells...)
	}
	return cost.Here(id, base, sets, cells), nil
}

// probeFile is where the probe is kept.
func probeFile() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "spawnbench", "machine-probe.json")
}

// keepProbe writes the probe's measurements to path, for the next command
// on this machine.
func keepProbe(path string, mc *cost.Machine) error {
	b, err := json.MarshalIndent(mc, "", "  ")
	if err != nil {
		return fmt.Errorf("keep the probe: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("keep the probe: %w", err)
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

// keptProbe reads what keepProbe wrote, if it was measured on machine id
// for model, less than ProbeAge ago, and measured every browser host of
// hosts; nil otherwise.
func keptProbe(path, id string, model *cost.Model, hosts []string) *cost.Machine {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var mc cost.Machine
	if json.Unmarshal(b, &mc) != nil || mc.ID != id || mc.Model != model.ID() || time.Since(mc.At) > ProbeAge || time.Since(mc.At) < 0 {
		return nil
	}
	if !mc.HasWarm(hosts) {
		return nil
	}
	return &mc
}
