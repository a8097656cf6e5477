package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the result-set layout this package writes: typed
// provenance with an invocation history, generation-stamped Parquet files
// and a process journal (2); CPU sets as lists, null for absent text,
// a description on every column (3). Sets of format 2 read as they are;
// sets written before it (flat string provenance) are read as one
// invocation.
const FormatVersion = 3

// Provenance says where a result set came from: every invocation (run,
// calibrate, resume) that wrote into it, oldest first. It is stored in
// provenance.json and in every Parquet file's key-value metadata.
type Provenance struct {
	Format      int          `json:"format"`
	Invocations []Invocation `json:"invocations"`
}

// OwnWork is proc.OwnWork as recorded.
type OwnWork struct {
	PerProcessNS int64   `json:"per_process_ns"`
	OthersCPUs   float64 `json:"others_cpus"`
	Processes    int     `json:"processes"`
}

// Invocation is one spawnbench command that wrote into the set. Every
// sample and process row carries the ID of the invocation that measured it.
type Invocation struct {
	ID       int32    `json:"id"`
	Command  string   `json:"command"` // "run", "calibrate", "resume"
	Args     []string `json:"args"`
	SpecPath string   `json:"spec_path"`
	SpecName string   `json:"spec_name"`
	SpecHash string   `json:"spec_hash"`
	SpecText string   `json:"spec_text"`
	// Overrides are the command line's replacements of the spec's values
	// (run --processes, --n, --mode), as flags; "" for none. SpecHash
	// covers them.
	Overrides   string            `json:"overrides,omitempty"`
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
	// Shard is the part of the plan this invocation ran; nil for the
	// whole plan.
	Shard *Shard `json:"shard,omitempty"`
	// Containment is what held the benchmarks' process trees (see
	// engine/proc): "cgroup" (a cgroup v2 per tree), "guardian" (a child
	// subreaper process per tree, where no cgroup could be made), or, in
	// sets measured before guardians, "subreaper" (spawnbench itself as
	// the subreaper, which a descendant that cleared its environment and
	// was orphaned at once could escape). ContainmentDetail says it in a
	// sentence: the mechanism, where, and why not a cgroup.
	Containment       string `json:"containment,omitempty"`
	ContainmentDetail string `json:"containment_detail,omitempty"`
	// BrowserIsolation is what kept other local users out of the run's
	// browsers (see engine/browser), for an invocation that planned
	// browser pages: "netns" (the warm Firefox and its page servers in a
	// network namespace of spawnbench's own, which nothing else on the
	// machine can connect into) or "session-check" (on the machine's
	// loopback, where a Firefox whose remote agent took someone else's
	// connection before spawnbench's session is refused). Either way
	// Chromium is driven over a pipe and every page server refuses
	// requests without its page's secret. BrowserIsolationDetail says it
	// in a sentence, and why no namespace where there was none. Empty in
	// sets measured before it, which had neither the namespace nor the
	// secrets.
	BrowserIsolation       string `json:"browser_isolation,omitempty"`
	BrowserIsolationDetail string `json:"browser_isolation_detail,omitempty"`
	// OwnWork is what starting and ending one trivial process cost the
	// machine beyond the CPU time charged to it and to spawnbench, and
	// the other programs' load at the time, measured before the first
	// benchmark (nil when it could not be measured).
	OwnWork *OwnWork `json:"own_work,omitempty"`
	// Origin is where a merged invocation came from: the directory and
	// its ID there (rows now carry the new ID).
	Origin *Origin `json:"origin,omitempty"`
}

// Shard is one of Count disjoint parts of a plan, numbered from 0.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Source says where the shard came from: "--shard", or the
	// environment variable that set it (SPAWNBENCH_SHARD,
	// JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID).
	Source string `json:"source"`
	// Costs identifies the cost model the split was computed with
	// (cost.Model.ID): the shards of one run must share it.
	Costs string `json:"costs,omitempty"`
}

// String spells the shard as --shard takes it, "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Origin is the source of a merged invocation.
type Origin struct {
	Dir string `json:"dir"`
	ID  int32  `json:"id"`
	// Set is the ID of the result set it came from (empty for sets
	// written before set IDs).
	Set string `json:"set,omitempty"`
}

// PlannedCell is one cell an invocation meant to measure.
type PlannedCell struct {
	Environment string `json:"environment"`
	Kind        string `json:"kind"`
	// Family is the host family the environment ran in (hostfacts), so a
	// report can group an environment that was skipped; "" in sets
	// written before it.
	Family    string `json:"family,omitempty"`
	Mode      string `json:"mode"`
	N         int    `json:"n"`
	Processes int    `json:"processes"`
	Warmup    int    `json:"warmup"`
	// Placement and PlacementOf are the environment's (ProcessRun's);
	// "" in sets written before them.
	Placement   string `json:"placement,omitempty"`
	PlacementOf string `json:"placement_of,omitempty"`
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
	// ID is Identity(), recorded with the fields it was made from.
	ID        string `json:"id,omitempty"`
	Hostname  string `json:"hostname"`
	CPUModel  string `json:"cpu_model"`
	Cores     int    `json:"cores"`
	Kernel    string `json:"kernel"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"go_version"`
}

// Identity is a short stable name of the machine: a hash of its
// hostname, CPU model, core count, kernel and architecture, so the same
// machine gets the same ID in every result set and any change of those
// (a new kernel, another CPU) makes another machine. It is the recorded
// ID when there is one.
func (m Machine) Identity() string {
	if m.ID != "" {
		return m.ID
	}
	h := sha256.New()
	for _, f := range []string{m.Hostname, m.CPUModel, fmt.Sprint(m.Cores), m.Kernel, m.Arch} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Label describes the machine for people: "hostname, CPU, N cores,
// kernel, arch" (its ID names it).
func (m Machine) Label() string {
	host := m.Hostname
	if host == "" {
		host = "unknown host"
	}
	return fmt.Sprintf("%s, %s, %d cores, %s, %s", host, m.CPUModel, m.Cores, m.Kernel, m.Arch)
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
			why = append(why, fmt.Sprintf("invocation %d (%s) never ended (still running, or killed)", inv.ID, inv.Command))
		}
	}
	have := map[string]int{}
	for _, r := range s.Runs {
		m := r.Machine
		if inv := s.Provenance.Find(r.Invocation); m == "" && inv != nil {
			m = inv.Machine.Identity()
		}
		have[m+" "+CellKey(r.Environment, r.Mode, int64(r.N))]++
	}
	seen := map[string]bool{}
	for _, inv := range s.Provenance.Invocations {
		for _, c := range inv.Planned {
			k := inv.Machine.Identity() + " " + c.Key()
			if seen[k] || inv.Skipped[c.Environment] != "" {
				continue
			}
			seen[k] = true
			// Rows of no known machine count for every machine.
			if got, want := have[k]+have[" "+c.Key()], c.Processes+c.Warmup; got < want {
				why = append(why, fmt.Sprintf("cell %s has %d of %d processes", c.Key(), got, want))
			}
		}
	}
	return why
}

// Unfinished is the measuring invocations (run, resume) that were
// interrupted or never ended and that no later invocation of the same
// spec completed: what a --resume would continue.
func (s *Set) Unfinished() []Invocation {
	var out []Invocation
	invs := s.Provenance.Invocations
	for i, inv := range invs {
		if (inv.Command == "run" || inv.Command == "resume") && (inv.Interrupted || inv.EndedAt == nil) && !completedLater(inv, invs[i+1:]) {
			out = append(out, inv)
		}
	}
	return out
}

// completedLater: a later invocation of the same spec and purpose
// (measuring, or calibrating) ended normally, so an interruption of inv is
// history, not a gap.
func completedLater(inv Invocation, later []Invocation) bool {
	measuring := func(c string) bool { return c == "run" || c == "resume" }
	for _, l := range later {
		if l.Command != "merge" && sameSource(l, inv) && l.SpecHash == inv.SpecHash && measuring(l.Command) == measuring(inv.Command) && l.EndedAt != nil && !l.Interrupted {
			return true
		}
	}
	return false
}

// sameSource: a and b wrote into one directory for one shard on one
// machine, so one can complete the other. In a merged set, an
// interrupted shard is not completed by another shard that ended well.
func sameSource(a, b Invocation) bool {
	dir := func(i Invocation) string {
		if i.Origin == nil {
			return ""
		}
		return i.Origin.Dir
	}
	shard := func(i Invocation) Shard {
		if i.Shard == nil {
			return Shard{}
		}
		return Shard{Index: i.Shard.Index, Count: i.Shard.Count}
	}
	return dir(a) == dir(b) && shard(a) == shard(b) && a.Machine.Identity() == b.Machine.Identity()
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
