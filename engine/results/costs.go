package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/hostfacts"
	"spawnbench/engine/stats"
)

// costsFormat is the layout of costs.json; a file of another is read as
// absent (and the summary made again from runs.parquet).
const costsFormat = 1

// Costs is a set's cost summary, costs.json: what one process of each
// cell took, so that the cost model (engine/cost) reads a set in a few
// kilobytes rather than through its samples. It is derived from the runs
// and the provenance (CostsOf), written with every generation of the set
// and stamped with its ID and generation, so a stale one is told and
// made again from runs.parquet (ReadCosts).
type Costs struct {
	Set        string     `json:"set"`
	Generation int64      `json:"generation"`
	Format     int        `json:"format"`
	Cells      []CellCost `json:"cells"`
}

// CellCost is the wall time of one cell's processes on one machine.
type CellCost struct {
	Machine     string `json:"machine"`
	Kind        string `json:"kind"`
	Environment string `json:"environment"`
	Host        string `json:"host"`
	Mode        string `json:"mode"`
	// Start is how a browser host's processes started (hostfacts.Warm or
	// Cold); "" for other hosts.
	Start string `json:"browser_start,omitempty"`
	N     int    `json:"n"`
	// Processes counts the cell's processes that have a wall time,
	// warm-ups and failed ones included: they take time too.
	Processes int `json:"processes"`
	// MedianWallNS is their median wall time, measured outside the
	// process, start to exit (the pause before it excluded).
	MedianWallNS int64 `json:"median_wall_ns"`
}

// CostsOf summarizes the set's runs per cell: machine, environment (with
// its kind and host), mode, browser start and n.
func CostsOf(s *Set) Costs {
	startOf := browserStarts(s)
	type key struct {
		machine, kind, env, host, mode, start string
		n                                     int
	}
	walls := map[key][]float64{}
	for _, r := range s.Runs {
		if r.WallNS <= 0 {
			continue // never started: no wall time
		}
		k := key{r.Machine, r.Kind, r.Environment, r.Host, r.Mode, startOf(r), int(r.N)}
		walls[k] = append(walls[k], float64(r.WallNS))
	}
	c := Costs{Set: s.ID, Generation: s.Generation, Format: costsFormat, Cells: make([]CellCost, 0, len(walls))}
	for k, w := range walls {
		c.Cells = append(c.Cells, CellCost{Machine: k.machine, Kind: k.kind, Environment: k.env, Host: k.host, Mode: k.mode, Start: k.start, N: k.n,
			Processes: len(w), MedianWallNS: int64(stats.Median(w))})
	}
	slices.SortFunc(c.Cells, func(a, b CellCost) int {
		return cmp.Or(cmp.Compare(a.Machine, b.Machine), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Environment, b.Environment),
			cmp.Compare(a.Host, b.Host), cmp.Compare(a.Mode, b.Mode), cmp.Compare(a.Start, b.Start), cmp.Compare(a.N, b.N))
	})
	return c
}

// browserStarts says how each run of s started its browser: the
// browser_start its invocation's spec resolved for its environment;
// hostfacts.Cold for a browser host's run of a set written before the
// setting existed, when every browser started cold; "" for other hosts.
func browserStarts(s *Set) func(ProcessRun) string {
	starts := map[int32]map[string]string{}
	for _, inv := range s.Provenance.Invocations {
		var resolved struct {
			Environments []struct {
				Name         string `json:"name"`
				BrowserStart string `json:"browser_start"`
			} `json:"environments"`
		}
		if json.Unmarshal(inv.Resolved, &resolved) != nil {
			continue
		}
		m := map[string]string{}
		for _, e := range resolved.Environments {
			m[e.Name] = e.BrowserStart
		}
		starts[inv.ID] = m
	}
	return func(r ProcessRun) string {
		if !hostfacts.Browser(r.Host) {
			return ""
		}
		if s := starts[r.Invocation][r.Environment]; s != "" {
			return s
		}
		return hostfacts.Cold
	}
}

// Encode is costs.json's text: its fields, then one cell a line, so that
// a re-measured set shows as a diff of its cells.
func (c Costs) Encode() []byte {
	var b bytes.Buffer
	set, _ := json.Marshal(c.Set)
	fmt.Fprintf(&b, "{\"set\": %s, \"generation\": %d, \"format\": %d, \"cells\": [", set, c.Generation, c.Format)
	for i, cell := range c.Cells {
		line, _ := json.Marshal(cell) // plain fields: cannot fail
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// writeCosts writes the set's cost summary into dir.
func writeCosts(dir string, s *Set) error {
	return atomicfile.WriteBytes(filepath.Join(dir, CostsFile), CostsOf(s).Encode())
}

// ReadCosts is the cost summary of the set in dir: its costs.json while
// that is the set's current one (the set and generation of
// provenance.json), else made from runs.parquet (CostsOf), never from the
// samples. Either way it is the summary of the set's compacted files: a
// journal's processes (a run in progress) are not in it. With machine
// set, it holds that machine's cells only, and a set written before the
// summary whose provenance names no invocation on that machine is not
// read further: its summary is empty.
func ReadCosts(dir, machine string) (Costs, error) {
	if !Exists(dir) {
		return Costs{}, &FormatError{Path: dir, Err: fmt.Errorf("%w: %s is missing", ErrNoSet, SamplesFile)}
	}
	var head struct {
		Set        string `json:"set"`
		Generation int64  `json:"generation"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ProvenanceFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Costs{}, fmt.Errorf("read %s: %w", filepath.Join(dir, ProvenanceFile), err)
	}
	if err == nil && json.Unmarshal(b, &head) == nil { // else a set of format 1, or none compacted yet
		if c, ok := readCostsFile(dir, head.Set, head.Generation); ok {
			return c.of(machine), nil
		}
		var prov Provenance
		if machine != "" && json.Unmarshal(b, &prov) == nil && !measuredOn(prov, machine) {
			return Costs{Set: head.Set, Generation: head.Generation, Format: costsFormat}, nil
		}
	}
	runs, err := readTable(filepath.Join(dir, RunsFile), runColumns)
	if err != nil {
		return Costs{}, err
	}
	s := &Set{ID: runs.set, Runs: runs.rows, Provenance: runs.prov, Generation: runs.generation}
	fillMachines(s)
	return CostsOf(s).of(machine), nil
}

// readCostsFile is dir's costs.json, if it is of this layout and of the
// set and generation given.
func readCostsFile(dir, set string, generation int64) (Costs, bool) {
	b, err := os.ReadFile(filepath.Join(dir, CostsFile))
	if err != nil {
		return Costs{}, false
	}
	var c Costs
	if json.Unmarshal(b, &c) != nil || c.Format != costsFormat || c.Set != set || c.Generation != generation {
		return Costs{}, false
	}
	return c, true
}

// measuredOn says whether an invocation of p ran on machine.
func measuredOn(p Provenance, machine string) bool {
	for _, inv := range p.Invocations {
		if inv.Machine.Identity() == machine {
			return true
		}
	}
	return false
}

// of is the summary's cells of machine, or all of them for "".
func (c Costs) of(machine string) Costs {
	if machine == "" {
		return c
	}
	all := c.Cells
	c.Cells = nil
	for _, cell := range all {
		if cell.Machine == machine {
			c.Cells = append(c.Cells, cell)
		}
	}
	return c
}
