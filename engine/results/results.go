// Package results defines spawnbench's result set and reads and writes it
// as Parquet.
//
// This package is opinionated: a result set is a directory of plain Parquet
// files with flat, typed columns (strings, int32, int64, bool), one row per
// spawn or per process, so pandas, polars and DuckDB open it with no
// conversion. Nothing is ever trimmed or aggregated here; views such as
// "last 10 spawns" are computed by readers.
//
// Nothing measured is lost and nothing is half-written: one writer at a
// time holds the directory's lock; each finished process is appended to a
// fsynced journal before the next starts; the journal is compacted into
// the Parquet files, each written whole under a temporary name and
// renamed, stamped with a shared generation that the reader checks, so a
// kill at any moment leaves a set that reads back whole. Every file also
// carries the set's own random ID, so a file of another set (or a
// missing one) is refused by every reader and writer, never mixed in or
// written over. Provenance is the
// history of every invocation that wrote into the set, and travels inside
// every file's key-value metadata.
//
// Every row names the machine that measured it (the machine column, a
// dictionary of the machines' IDs; Machine.Identity), so sets measured on
// many machines merge (Merge) into one that still says where each row
// came from; one (machine, environment, mode, n) cell is one measurement.
package results

import "time"

// File names inside a result directory.
const (
	SamplesFile     = "samples.parquet"
	RunsFile        = "runs.parquet"
	CalibrationFile = "calibration.parquet"
	ProvenanceFile  = "provenance.json"
	// JournalFile holds the processes finished since the last compaction.
	JournalFile = "journal.jsonl"
	// LockFile is held (flock) by the one process writing the set.
	LockFile = ".spawnbench.lock"
)

// Process statuses in runs.parquet.
const (
	StatusOK      = "ok"      // exited 0 and printed one line per spawn
	StatusFailed  = "failed"  // exited non-zero
	StatusCrashed = "crashed" // ended by a signal
	StatusOOM     = "oom"     // ran out of memory (a signal or the runtime said so)
	StatusTimeout = "timeout" // passed limits.timeout and was killed
	StatusShort   = "short"   // exited 0 but printed fewer lines than spawns
	StatusCapped  = "capped"  // needed more of a resource than its host allows (a browser's workers per origin)
	StatusError   = "error"   // could not be started
)

// SpawnSample is one spawn: one row of samples.parquet.
type SpawnSample struct {
	Environment string
	// Kind is the short form of the environment's (payload, host) pair;
	// Payload and Host are its two axes (empty in sets written before
	// environments had them).
	Kind    string
	Payload string
	Host    string
	Mode    string
	N       int32
	// Process is the 0-based repetition within its cell; warm-up processes
	// are numbered separately from 0 too.
	Process int32
	// Thread is the 0-based spawn order within the process.
	Thread int32
	// SpawnNS is the child's first clock reading minus the parent's reading
	// just before the create call.
	SpawnNS int64
	// CreateNS is how long the create call itself took, when known.
	CreateNS *int64
	// JoinedNS is when the join returned (or the worker's message arrived),
	// from the same start: an outside bound on SpawnNS.
	JoinedNS *int64
	// ParentCPU is the CPU the parent was on when the create call returned
	// and ChildCPU the one the child was on at its first clock reading;
	// nil where the environment cannot tell (see Placement).
	ParentCPU *int32
	ChildCPU  *int32
	Warmup    bool
	// ClockTrusted is false when this sample breaks 0 <= spawn <= joined
	// by more than one clock step, or its environment failed calibration
	// in this result set.
	ClockTrusted bool
	// ClockStepNS is one step of the host's benchmark clock, as the host
	// declares it: the bracket's allowance on both bounds.
	ClockStepNS int64
	// Invocation is the ID of the invocation that measured it.
	Invocation int32
	// Machine is the ID of the machine that measured it (Machine.ID).
	Machine string
}

// ProcessRun is one benchmark process (or page): one row of runs.parquet.
type ProcessRun struct {
	Environment string
	Kind        string
	Payload     string
	Host        string
	// ClockStepNS is the host's declared clock step (SpawnSample's).
	ClockStepNS int64
	Mode        string
	N           int32
	Process     int32
	Warmup      bool
	Status      string
	ExitCode    int32
	Signal      string
	WallNS      int64
	// Samples is the number of spawn lines the process printed.
	Samples int32
	// Error is the tail of stderr, or why the process did not run.
	Error     string
	StartedAt time.Time
	// CPUs is the pinning applied, e.g. "0,1"; empty for none.
	CPUs string
	// AllowedCPUs are the CPUs the process could run on, e.g. "0,1": the
	// pinning, or without one the CPUs spawnbench itself was allowed; empty
	// where unknown.
	AllowedCPUs string `json:",omitempty"`
	// Seq is the process's position in its invocation's run order.
	Seq int32
	// Invocation is the ID of the invocation that ran it.
	Invocation int32
	// Machine is the ID of the machine that ran it (Machine.ID).
	Machine string `json:",omitempty"`
	// The machine's noise over the process's span; nil where the platform
	// cannot tell. UserNS, SysNS, MaxRSSBytes and CtxSwitchesInvoluntary are
	// the benchmark's whole process tree; OthersCPUNS is the CPU time
	// everything else used meanwhile, StealNS the hypervisor's steal.
	UserNS                 *int64
	SysNS                  *int64
	MaxRSSBytes            *int64
	CtxSwitchesInvoluntary *int64
	OthersCPUNS            *int64
	StealNS                *int64
	// OwnWorkNS is the part of OthersCPUNS that spawnbench's own starting
	// and ending of a process costs the machine (proc.OwnWork, measured at
	// the start of the invocation); the busy rule subtracts it. Nil where
	// it was not measured, and in sets written before the column.
	OwnWorkNS *int64
	// FirstSpawnNS is the process's first spawn and TypicalSpawnNS the 20%
	// trimmed mean of all its spawns (report.TypicalSpawnNS): the process
	// as one number, which is what reports compute intervals over; nil
	// for a process that printed no spawn, and in sets written before
	// these columns.
	FirstSpawnNS   *int64
	TypicalSpawnNS *int64
	// RendererPID is the OS process id of the renderer that ran a page
	// (a browser host's repetition), so that each repetition can be seen
	// to have had one of its own; nil for a process, and in sets written
	// before the column.
	RendererPID *int64 `json:",omitempty"`
}

// CalibrationCheck is one clock check: one row of calibration.parquet.
type CalibrationCheck struct {
	Environment string
	Kind        string
	Host        string
	// ClockStepNS is the host's declared clock step, the coherence check's
	// allowance on both bounds.
	ClockStepNS int64
	// Check is "sleep" or "coherence".
	Check   string
	Process int32
	// RequestedNS is the requested sleep (sleep checks) or the number of
	// spawns (coherence checks).
	RequestedNS int64
	// MeasuredNS is what the benchmark clock recorded (sleep), or the
	// smallest spawn_ns seen (coherence).
	MeasuredNS int64
	// WallNS is the process's wall time measured outside it.
	WallNS int64
	// LowNS and HighNS bound a passing MeasuredNS (sleep checks).
	LowNS  int64
	HighNS int64
	// Violations counts spawns with spawn_ns < 0 or spawn_ns > joined_ns.
	Violations int32
	Pass       bool
	Detail     string
	// Invocation is the ID of the calibrate invocation that made the check.
	Invocation int32
	// ObservedStepNS and ClockReadNS are what the calibration benchmark
	// measured of its clock (sleep checks), beside the declared step: the
	// smallest step between two readings that differ (a coarsened clock's
	// grain; at most the read cost for a fine one) and the mean cost of
	// one reading. Nil where it did not say.
	ObservedStepNS *int64
	ClockReadNS    *int64
}

var sampleColumns = []column[SpawnSample]{
	stringCol("environment", func(r *SpawnSample) *string { return &r.Environment }),
	stringCol("kind", func(r *SpawnSample) *string { return &r.Kind }),
	dictStringCol("payload", func(r *SpawnSample) *string { return &r.Payload }),
	dictStringCol("host", func(r *SpawnSample) *string { return &r.Host }),
	stringCol("mode", func(r *SpawnSample) *string { return &r.Mode }),
	int32Col("n", func(r *SpawnSample) *int32 { return &r.N }),
	int32Col("process", func(r *SpawnSample) *int32 { return &r.Process }),
	int32Col("thread", func(r *SpawnSample) *int32 { return &r.Thread }),
	int64Col("spawn_ns", func(r *SpawnSample) *int64 { return &r.SpawnNS }),
	optInt64Col("create_ns", func(r *SpawnSample) **int64 { return &r.CreateNS }),
	optInt64Col("joined_ns", func(r *SpawnSample) **int64 { return &r.JoinedNS }),
	addedLater(optInt32Col("parent_cpu", func(r *SpawnSample) **int32 { return &r.ParentCPU })),
	addedLater(optInt32Col("child_cpu", func(r *SpawnSample) **int32 { return &r.ChildCPU })),
	boolCol("warmup", func(r *SpawnSample) *bool { return &r.Warmup }),
	boolCol("clock_trusted", func(r *SpawnSample) *bool { return &r.ClockTrusted }),
	int64Col("clock_step_ns", func(r *SpawnSample) *int64 { return &r.ClockStepNS }),
	int32Col("invocation", func(r *SpawnSample) *int32 { return &r.Invocation }),
	dictStringCol("machine", func(r *SpawnSample) *string { return &r.Machine }),
}

var runColumns = []column[ProcessRun]{
	stringCol("environment", func(r *ProcessRun) *string { return &r.Environment }),
	stringCol("kind", func(r *ProcessRun) *string { return &r.Kind }),
	dictStringCol("payload", func(r *ProcessRun) *string { return &r.Payload }),
	dictStringCol("host", func(r *ProcessRun) *string { return &r.Host }),
	int64Col("clock_step_ns", func(r *ProcessRun) *int64 { return &r.ClockStepNS }),
	stringCol("mode", func(r *ProcessRun) *string { return &r.Mode }),
	int32Col("n", func(r *ProcessRun) *int32 { return &r.N }),
	int32Col("process", func(r *ProcessRun) *int32 { return &r.Process }),
	boolCol("warmup", func(r *ProcessRun) *bool { return &r.Warmup }),
	stringCol("status", func(r *ProcessRun) *string { return &r.Status }),
	int32Col("exit_code", func(r *ProcessRun) *int32 { return &r.ExitCode }),
	stringCol("signal", func(r *ProcessRun) *string { return &r.Signal }),
	int64Col("wall_ns", func(r *ProcessRun) *int64 { return &r.WallNS }),
	int32Col("samples", func(r *ProcessRun) *int32 { return &r.Samples }),
	stringCol("error", func(r *ProcessRun) *string { return &r.Error }),
	timeCol("started_at", func(r *ProcessRun) *time.Time { return &r.StartedAt }),
	stringCol("cpus", func(r *ProcessRun) *string { return &r.CPUs }),
	addedLater(stringCol("allowed_cpus", func(r *ProcessRun) *string { return &r.AllowedCPUs })),
	int32Col("seq", func(r *ProcessRun) *int32 { return &r.Seq }),
	int32Col("invocation", func(r *ProcessRun) *int32 { return &r.Invocation }),
	optInt64Col("user_ns", func(r *ProcessRun) **int64 { return &r.UserNS }),
	optInt64Col("sys_ns", func(r *ProcessRun) **int64 { return &r.SysNS }),
	optInt64Col("max_rss_bytes", func(r *ProcessRun) **int64 { return &r.MaxRSSBytes }),
	optInt64Col("ctx_switches_involuntary", func(r *ProcessRun) **int64 { return &r.CtxSwitchesInvoluntary }),
	optInt64Col("others_cpu_ns", func(r *ProcessRun) **int64 { return &r.OthersCPUNS }),
	optInt64Col("steal_ns", func(r *ProcessRun) **int64 { return &r.StealNS }),
	addedLater(optInt64Col("own_work_ns", func(r *ProcessRun) **int64 { return &r.OwnWorkNS })),
	dictStringCol("machine", func(r *ProcessRun) *string { return &r.Machine }),
	addedLater(optInt64Col("first_spawn_ns", func(r *ProcessRun) **int64 { return &r.FirstSpawnNS })),
	addedLater(optInt64Col("typical_spawn_ns", func(r *ProcessRun) **int64 { return &r.TypicalSpawnNS })),
	addedLater(optInt64Col("renderer_pid", func(r *ProcessRun) **int64 { return &r.RendererPID })),
}

var calibrationColumns = []column[CalibrationCheck]{
	stringCol("environment", func(r *CalibrationCheck) *string { return &r.Environment }),
	stringCol("kind", func(r *CalibrationCheck) *string { return &r.Kind }),
	dictStringCol("host", func(r *CalibrationCheck) *string { return &r.Host }),
	int64Col("clock_step_ns", func(r *CalibrationCheck) *int64 { return &r.ClockStepNS }),
	stringCol("check", func(r *CalibrationCheck) *string { return &r.Check }),
	int32Col("process", func(r *CalibrationCheck) *int32 { return &r.Process }),
	int64Col("requested_ns", func(r *CalibrationCheck) *int64 { return &r.RequestedNS }),
	int64Col("measured_ns", func(r *CalibrationCheck) *int64 { return &r.MeasuredNS }),
	int64Col("wall_ns", func(r *CalibrationCheck) *int64 { return &r.WallNS }),
	int64Col("low_ns", func(r *CalibrationCheck) *int64 { return &r.LowNS }),
	int64Col("high_ns", func(r *CalibrationCheck) *int64 { return &r.HighNS }),
	int32Col("violations", func(r *CalibrationCheck) *int32 { return &r.Violations }),
	boolCol("pass", func(r *CalibrationCheck) *bool { return &r.Pass }),
	stringCol("detail", func(r *CalibrationCheck) *string { return &r.Detail }),
	int32Col("invocation", func(r *CalibrationCheck) *int32 { return &r.Invocation }),
	addedLater(optInt64Col("observed_step_ns", func(r *CalibrationCheck) **int64 { return &r.ObservedStepNS })),
	addedLater(optInt64Col("clock_read_ns", func(r *CalibrationCheck) **int64 { return &r.ClockReadNS })),
}
