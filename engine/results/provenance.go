package results

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the result-set layout this package writes: typed
// provenance with an invocation history, generation-stamped Parquet files
// and a process journal. Sets written before it (flat string provenance)
// are read as one invocation.
const FormatVersion = 2

// Provenance says where a result set came from: every invocation (run,
// calibrate, resume) that wrote into it, oldest first. It is stored in
// provenance.json and in every Parquet file's key-value metadata.
type Provenance struct {
	Format      int          `json:"format"`
	Invocations []Invocation `json:"invocations"`
}

// Invocation is one spawnbench command that wrote into the set. Every
// sample and process row carries the ID of the invocation that measured it.
type Invocation struct {
	ID          int32             `json:"id"`
	Command     string            `json:"command"` // "run", "calibrate", "resume"
	Args        []string          `json:"args"`
	SpecPath    string            `json:"spec_path"`
	SpecName    string            `json:"spec_name"`
	SpecHash    string            `json:"spec_hash"`
	SpecText    string            `json:"spec_text"`
	Resolved    json.RawMessage   `json:"resolved_spec,omitempty"`
	Planned     []PlannedCell     `json:"planned"`
	Order       string            `json:"order"`
	Seed        int64             `json:"seed"`
	Views       Views             `json:"views"`
	CPUs        []int             `json:"cpus"`
	Version     string            `json:"spawnbench_version"`
	Machine     Machine           `json:"machine"`
	Toolchains  map[string]string `json:"toolchains"`
	Skipped     map[string]string `json:"skipped"`
	StartedAt   time.Time         `json:"started_at"`
	EndedAt     *time.Time        `json:"ended_at"`
	Interrupted bool              `json:"interrupted"`
}

// PlannedCell is one cell an invocation meant to measure.
type PlannedCell struct {
	Environment string `json:"environment"`
	Kind        string `json:"kind"`
	Mode        string `json:"mode"`
	N           int    `json:"n"`
	Processes   int    `json:"processes"`
	Warmup      int    `json:"warmup"`
}

// Key is the cell's identity, "environment/mode/n".
func (c PlannedCell) Key() string { return CellKey(c.Environment, c.Mode, int64(c.N)) }

// CellKey is a cell's identity everywhere: "environment/mode/n".
func CellKey(environment, mode string, n int64) string {
	return environment + "/" + mode + "/" + strconv.FormatInt(n, 10)
}

// Views is the last-K trim that reports apply; stored data is never trimmed.
type Views struct {
	Last int `json:"last"`
	MinN int `json:"min_n"`
}

// Machine describes the machine an invocation ran on.
type Machine struct {
	Hostname  string `json:"hostname"`
	CPUModel  string `json:"cpu_model"`
	Cores     int    `json:"cores"`
	Kernel    string `json:"kernel"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"go_version"`
}

// Last is the most recent invocation, or nil for none.
func (p *Provenance) Last() *Invocation {
	if len(p.Invocations) == 0 {
		return nil
	}
	return &p.Invocations[len(p.Invocations)-1]
}

// LastMeasuring is the most recent run or resume invocation (the one whose
// spec made the set's samples), or nil when only calibrations wrote here.
func (p *Provenance) LastMeasuring() *Invocation {
	for i := len(p.Invocations) - 1; i >= 0; i-- {
		if c := p.Invocations[i].Command; c == "run" || c == "resume" {
			return &p.Invocations[i]
		}
	}
	return nil
}

// Find is the invocation with the given ID, or nil.
func (p *Provenance) Find(id int32) *Invocation {
	for i := range p.Invocations {
		if p.Invocations[i].ID == id {
			return &p.Invocations[i]
		}
	}
	return nil
}

// NextID is the ID for a new invocation: one past the highest so far.
func (p *Provenance) NextID() int32 {
	var id int32
	for _, inv := range p.Invocations {
		id = max(id, inv.ID)
	}
	return id + 1
}

// Incomplete says why the set is not a whole measurement of what its
// invocations planned: an invocation interrupted or never ended (and not
// completed by a later resume of the same spec), or a planned process
// missing. It is empty for a complete set.
func (s *Set) Incomplete() []string {
	var why []string
	invs := s.Provenance.Invocations
	for i, inv := range invs {
		if completedLater(inv, invs[i+1:]) {
			continue
		}
		switch {
		case inv.Interrupted:
			why = append(why, fmt.Sprintf("invocation %d (%s) was interrupted", inv.ID, inv.Command))
		case inv.EndedAt == nil:
			why = append(why, fmt.Sprintf("invocation %d (%s) never ended (killed?)", inv.ID, inv.Command))
		}
	}
	have := map[string]int{}
	for _, r := range s.Runs {
		have[CellKey(r.Environment, r.Mode, int64(r.N))]++
	}
	seen := map[string]bool{}
	for _, inv := range s.Provenance.Invocations {
		for _, c := range inv.Planned {
			k := c.Key()
			if seen[k] || inv.Skipped[c.Environment] != "" {
				continue
			}
			seen[k] = true
			if got, want := have[k], c.Processes+c.Warmup; got < want {
				why = append(why, fmt.Sprintf("cell %s has %d of %d processes", k, got, want))
			}
		}
	}
	return why
}

// completedLater: a later invocation of the same spec and purpose
// (measuring, or calibrating) ended normally, so an interruption of inv is
// history, not a gap.
func completedLater(inv Invocation, later []Invocation) bool {
	measuring := func(c string) bool { return c == "run" || c == "resume" }
	for _, l := range later {
		if l.SpecHash == inv.SpecHash && measuring(l.Command) == measuring(inv.Command) && l.EndedAt != nil && !l.Interrupted {
			return true
		}
	}
	return false
}

// legacyProvenance turns the flat string map of sets written before
// FormatVersion 2 into one invocation, so old sets stay readable.
func legacyProvenance(flat map[string]string) Provenance {
	inv := Invocation{
		ID: 0, Command: "run",
		SpecPath: flat["spec_path"], SpecName: flat["spec_name"], SpecHash: flat["spec_hash"], SpecText: flat["spec_text"],
		Version:     flat["spawnbench_version"],
		Machine:     Machine{CPUModel: flat["cpu_model"], Kernel: flat["kernel"], GoVersion: flat["go_version"]},
		Interrupted: flat["interrupted"] == "true",
	}
	if inv.SpecName == "calibrate" {
		inv.Command = "calibrate"
	}
	inv.Machine.Cores, _ = strconv.Atoi(flat["cores"])
	inv.Views.Last, _ = strconv.Atoi(flat["views_last"])
	inv.Views.MinN, _ = strconv.Atoi(flat["views_min_n"])
	for _, c := range strings.Split(flat["pinning"], ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
			inv.CPUs = append(inv.CPUs, v)
		}
	}
	_ = json.Unmarshal([]byte(flat["toolchains"]), &inv.Toolchains)
	_ = json.Unmarshal([]byte(flat["skipped"]), &inv.Skipped)
	if t, err := time.Parse(time.RFC3339, flat["started_at"]); err == nil {
		inv.StartedAt = t
	}
	if t, err := time.Parse(time.RFC3339, flat["ended_at"]); err == nil {
		inv.EndedAt = &t
	}
	return Provenance{Format: 1, Invocations: []Invocation{inv}}
}
