// Package results defines spawnbench's result set and reads and writes it
// as Parquet.
//
// This package is opinionated: a result set is a directory of plain Parquet
// files with typed columns (strings, integers, booleans, lists of CPU
// numbers; null where a value is absent), each described in the file, one
// row per spawn or per process, so pandas, polars and DuckDB open it with
// no conversion. The rows are what was measured. Beside them it stores
// what engine/stats computes once from them, and computes no statistic of
// its own: each process's reduction (summary.go, stats.ReduceSpawns: its
// typical spawn and spawn variance), made with the process's rows, and
// each cell's median wall time, the set's cost summary (costs.go),
// written with every generation so that expected times never read the
// samples; and the marks that qualify rows (clock trust; the busy rule's
// inputs, gathered by ProcessLoads). Views such as "last 10 spawns",
// figures and verdicts are the readers' (engine/report, engine/run), and
// a report's figures are written back only as the derived cells.parquet.
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
//
// Its files follow three seams. The schema: the row types (results.go),
// their columns (columns.go), the provenance (provenance.go), CPU lists
// and kinds (cpus.go, hosts.go) and the set in memory (set.go). The
// store: Parquet files (parquet.go), reading a directory back whole
// (read.go), the journal (journal.go), the one Writer (writer.go), its
// lock (lock.go) and the merge of sets (merge.go). The derivations, made
// from the rows and stored beside them: each process's reduction
// (summary.go), the clock-trust marks (clocktrust.go), placements
// (placement.go), the busy rule's inputs (noise.go), the cost summary
// (costs.go), the report's cells (cells.go), and the check that no spawn
// is held twice (unique.go).
package results

import "time"

// File names inside a result directory.
const (
	SamplesFile     = "samples.parquet"
	RunsFile        = "runs.parquet"
	CalibrationFile = "calibration.parquet"
	ProvenanceFile  = "provenance.json"
	// CostsFile holds the set's cost summary (see Costs).
	CostsFile = "costs.json"
	// JournalFile holds the processes finished since the last compaction.
	JournalFile = "journal.jsonl"
	// DamagedFile keeps the journal lines that could not be read, so that
	// a compaction never drops one silently (see Damage).
	DamagedFile = "journal.damaged.jsonl"
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
	// SpawnTrace is what the kernel's trace says of the spawn, for a
	// traced process (ProcessRun.Traced); all nil otherwise.
	SpawnTrace
}

// SpawnTrace is what the kernel's trace (engine/trace) says of one
// spawn: when the new task the spawn made was created, first woken and
// first run, in ns after the same start as SpawnNS (the parent's
// reading just before the create call), and on which CPU it first ran;
// and whether the spawn made a new task at all. All nil where the
// process was not traced; the times nil also where it made none, or
// the trace did not see that event.
type SpawnTrace struct {
	TaskNewNS      *int64 `json:"new,omitempty"`
	TaskWakeupNS   *int64 `json:"wake,omitempty"`
	TaskFirstRunNS *int64 `json:"run,omitempty"`
	TaskFirstCPU   *int32 `json:"cpu,omitempty"`
	// NewOSThread is true when the kernel made a new task for the spawn,
	// false when the trace saw none in its window (a reused worker, a
	// pool, a goroutine), nil when the trace lost its window's events.
	NewOSThread *bool `json:"os,omitempty"`
	// Phases are the host's own phases in the new thread, where the host
	// names them (the embedded Wasmtime, `spawnbench wasmtime --phases`),
	// in the order they happen: each ends at its EndNS, after the same
	// start as SpawnNS, and begins where the one before ended, the first
	// at TaskFirstRunNS. Nil where the host gives none.
	Phases []Phase `json:"phases,omitempty"`
}

// Phase is where one of a host's phases of a spawn ended, ns after the
// spawn's start.
type Phase struct {
	Name  string `json:"name"`
	EndNS int64  `json:"end"`
}

// ProcessRun is one benchmark process (or page): one row of runs.parquet.
type ProcessRun struct {
	Environment string
	Kind        string
	Payload     string
	Host        string
	// Family is the host family reports group the environment in
	// (hostfacts): the payload's, when it brings its own thread layer,
	// else the host's.
	Family string `json:",omitempty"`
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
	// CPUs is the pinning applied; empty for none.
	CPUs CPUList
	// AllowedCPUs are the CPUs the process could run on: the pinning, or
	// without one the CPUs spawnbench itself was allowed; empty where
	// unknown.
	AllowedCPUs CPUList `json:",omitempty"`
	// Seq is the process's position in its invocation's run order.
	Seq int32
	// Occasion is the occasion the process ran on: the block of its run
	// (schedule.occasions), renumbered apart by merge --occasions; 0 in
	// sets written before occasions, read as one occasion.
	Occasion int32 `json:",omitempty"`
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
	// FirstSpawnNS is the process's first spawn, TypicalSpawnNS the 20%
	// trimmed mean of all its spawns to the ns (stats.ReduceSpawns): the
	// process as one number, which is what reports compute figures and
	// intervals over; nil for a process that printed no spawn. Sets
	// written before these columns get them on reading (Summarize).
	FirstSpawnNS   *int64
	TypicalSpawnNS *int64
	// SpawnLogVar is the variance of the logarithms of all its spawn
	// times (stats.ReduceSpawns): the within-process level of a cell's
	// variance components; nil for fewer than two spawns. Sets written
	// before the column get it on reading.
	SpawnLogVar *float64 `json:",omitempty"`
	// RendererPID is the OS process id of the renderer that ran a page
	// (a browser host's repetition), so that each repetition can be seen
	// to have had one of its own; nil for a process, and in sets written
	// before the column.
	RendererPID *int64 `json:",omitempty"`
	// Placement is spec.PlaceFree for an environment as declared and
	// spec.PlaceOneCPU for its one-CPU twin, whose PlacementOf is the
	// environment it measures pinned; "" in sets written before.
	Placement   string `json:",omitempty"`
	PlacementOf string `json:",omitempty"`
	// SettleNS is how long the run waited, before the process (its pause
	// included), for the
	// machine to settle (schedule.settle), and SettleOthersCPUs the other
	// work it saw over the last window, in CPUs; nil where it did not
	// settle.
	SettleNS         *int64   `json:",omitempty"`
	SettleOthersCPUs *float64 `json:",omitempty"`
	// RefusedRequests counts the requests the page's server refused for
	// want of the page's secret: another local user's or another web
	// page's, never the page's own; nil for a process, and in sets
	// written before the column.
	RefusedRequests *int64 `json:",omitempty"`
	// Traced says the process's spawns were traced in the kernel
	// (engine/trace; the spec's anatomy block), their SpawnTrace filled;
	// TraceNote says why a process of a traced environment was not, or
	// what limits its trace. False and "" in sets written before.
	Traced    bool   `json:",omitempty"`
	TraceNote string `json:",omitempty"`
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
	stringCol("environment", func(r *SpawnSample) *string { return &r.Environment }).doc("the environment's name in its spec"),
	stringCol("kind", func(r *SpawnSample) *string { return &r.Kind }).doc("the short form of the environment's (payload, host) pair, e.g. emscripten-chromium"),
	dictStringCol("payload", func(r *SpawnSample) *string { return &r.Payload }).doc("what was built: native, wasi-freestanding, wasi-libc, emscripten, manual, command (empty in sets older than payloads)"),
	dictStringCol("host", func(r *SpawnSample) *string { return &r.Host }).doc("what ran it: os, wasmtime, wasmtime-cli, wasmtime-cm, wamr, wasmer, node, bun, deno, chromium, firefox, command (empty in sets older than hosts)"),
	stringCol("mode", func(r *SpawnSample) *string { return &r.Mode }).doc("sequential (each thread joined before the next is created) or parallel (all created, then all joined)"),
	int32Col("n", func(r *SpawnSample) *int32 { return &r.N }).doc("the number of threads the process spawned"),
	int32Col("process", func(r *SpawnSample) *int32 { return &r.Process }).doc("the process's 0-based repetition number within its cell (machine, environment, mode, n), warm-ups numbered apart: an index, not an OS process ID"),
	int32Col("thread", func(r *SpawnSample) *int32 { return &r.Thread }).doc("the spawn's 0-based position in its process's spawn order: an index, not a thread ID"),
	int64Col("spawn_ns", func(r *SpawnSample) *int64 { return &r.SpawnNS }).doc("the spawn time, ns: the child's first clock reading minus the parent's reading just before the create call"),
	optInt64Col("create_ns", func(r *SpawnSample) **int64 { return &r.CreateNS }).doc("how long the create call (pthread_create, new Worker) itself took, ns: a duration; null where the host cannot tell"),
	optInt64Col("joined_ns", func(r *SpawnSample) **int64 { return &r.JoinedNS }).doc("when the join returned (or the worker's message arrived), ns after the same start as spawn_ns: an offset, an outside bound on spawn_ns; null where unknown"),
	addedLater(optInt32Col("parent_cpu", func(r *SpawnSample) **int32 { return &r.ParentCPU })).doc("the CPU the parent was on when the create call returned; null where the host cannot tell"),
	addedLater(optInt32Col("child_cpu", func(r *SpawnSample) **int32 { return &r.ChildCPU })).doc("the CPU the child was on at its first clock reading; null where the host cannot tell"),
	boolCol("warmup", func(r *SpawnSample) *bool { return &r.Warmup }).doc("true for spawns of warm-up processes, which no statistic uses"),
	boolCol("clock_trusted", func(r *SpawnSample) *bool { return &r.ClockTrusted }).doc("false when the sample breaks 0 <= spawn_ns <= joined_ns by more than one clock step, or its environment failed calibration in this set"),
	int64Col("clock_step_ns", func(r *SpawnSample) *int64 { return &r.ClockStepNS }).doc("one step of the host's benchmark clock as the host declares it, ns (a browser's coarsened performance.now(), say)"),
	int32Col("invocation", func(r *SpawnSample) *int32 { return &r.Invocation }).doc("the invocation that measured it (provenance.json's invocations[].id)"),
	dictStringCol("machine", func(r *SpawnSample) *string { return &r.Machine }).doc("the ID of the machine that measured it; part of every key: (machine, environment, mode, n, process, thread) is one spawn"),
	addedLater(optInt64Col("task_new_ns", func(r *SpawnSample) **int64 { return &r.TaskNewNS })).doc("when the kernel created the spawn's new task (task:task_newtask), ns after the same start as spawn_ns, on CLOCK_MONOTONIC or a clock put on it: an offset; null where the process was not traced or the spawn made no new task"),
	addedLater(optInt64Col("task_wakeup_ns", func(r *SpawnSample) **int64 { return &r.TaskWakeupNS })).doc("the new task's first wake-up (sched:sched_wakeup_new), ns after the same start: an offset; null where not traced or not seen"),
	addedLater(optInt64Col("task_first_run_ns", func(r *SpawnSample) **int64 { return &r.TaskFirstRunNS })).doc("the new task's first switch-in (sched:sched_switch with it as next), ns after the same start: an offset; before = task_new_ns, kernel = task_wakeup_ns - task_new_ns, scheduler = task_first_run_ns - task_wakeup_ns, in the new thread = spawn_ns - task_first_run_ns; null where not traced or not seen"),
	addedLater(optInt32Col("task_first_cpu", func(r *SpawnSample) **int32 { return &r.TaskFirstCPU })).doc("the CPU of the new task's first run; null where not traced or not seen"),
	addedLater(optBoolCol("new_os_thread", func(r *SpawnSample) **bool { return &r.NewOSThread })).doc("true when the kernel made a new task for this spawn, false when the trace saw none in its window (a reused worker, a pool, a goroutine); null where the process was not traced, or its trace lost the events of the spawn's window (runs.parquet's trace_note says so)"),
	addedLater(phaseNamesCol("thread_phases", func(r *SpawnSample) *[]Phase { return &r.Phases })).doc("the host's own phases in the new thread, comma-separated in the order they happen, where a traced process's host names them (the embedded Wasmtime: thread_start,store,instance,guest_entry; docs/anatomy.md); empty otherwise"),
	addedLater(phaseEndsCol("thread_phase_end_ns", func(r *SpawnSample) *[]Phase { return &r.Phases })).doc("where each of thread_phases ended, ns after the same start as spawn_ns, on the trace's clock: offsets; each phase begins where the one before ended, the first at task_first_run_ns; null where thread_phases is empty"),
}

var runColumns = []column[ProcessRun]{
	stringCol("environment", func(r *ProcessRun) *string { return &r.Environment }).doc("the environment's name in its spec"),
	stringCol("kind", func(r *ProcessRun) *string { return &r.Kind }).doc("the short form of the environment's (payload, host) pair"),
	dictStringCol("payload", func(r *ProcessRun) *string { return &r.Payload }).doc("what was built (see samples.parquet)"),
	dictStringCol("host", func(r *ProcessRun) *string { return &r.Host }).doc("what ran it (see samples.parquet)"),
	addedLater(dictStringCol("family", func(r *ProcessRun) *string { return &r.Family })).doc("the host family reports group the environment in: native, Wasmtime, WAMR, Wasmer, JS hosts, Emscripten, raw workers, cooperative threads, other"),
	int64Col("clock_step_ns", func(r *ProcessRun) *int64 { return &r.ClockStepNS }).doc("one step of the host's benchmark clock as the host declares it, ns"),
	stringCol("mode", func(r *ProcessRun) *string { return &r.Mode }).doc("sequential or parallel"),
	int32Col("n", func(r *ProcessRun) *int32 { return &r.N }).doc("the number of threads the process spawned"),
	int32Col("process", func(r *ProcessRun) *int32 { return &r.Process }).doc("the 0-based repetition number within its cell, warm-ups numbered apart: an index, not an OS process ID; (machine, environment, mode, n, process, warmup) is one process"),
	boolCol("warmup", func(r *ProcessRun) *bool { return &r.Warmup }).doc("true for a warm-up process, which no statistic uses"),
	stringCol("status", func(r *ProcessRun) *string { return &r.Status }).doc("ok, failed (exited non-zero), crashed (ended by a signal), oom, timeout (passed limits.timeout), short (printed fewer spawns than n), capped (needed more workers than its host allows), error (could not start)"),
	int32Col("exit_code", func(r *ProcessRun) *int32 { return &r.ExitCode }).doc("the process's exit code; -1 when it was ended by a signal or never started"),
	optStringCol("signal", func(r *ProcessRun) *string { return &r.Signal }).doc("the signal that ended the process, e.g. killed; null when none did"),
	int64Col("wall_ns", func(r *ProcessRun) *int64 { return &r.WallNS }).doc("the process's wall time measured outside it, start to exit, ns: its start-up included"),
	int32Col("samples", func(r *ProcessRun) *int32 { return &r.Samples }).doc("the number of spawn lines the process printed (its rows in samples.parquet)"),
	optStringCol("error", func(r *ProcessRun) *string { return &r.Error }).doc("why the process did not end ok: the tail of its stderr or the cause; null for an ok process with nothing to say"),
	timeCol("started_at", func(r *ProcessRun) *time.Time { return &r.StartedAt }).doc("when the process started, UTC"),
	cpuListCol("cpus", func(r *ProcessRun) *CPUList { return &r.CPUs }).doc("the CPUs the process was pinned to; null for no pinning"),
	addedLater(cpuListCol("allowed_cpus", func(r *ProcessRun) *CPUList { return &r.AllowedCPUs })).doc("the CPUs the process could run on: its pinning, or without one the CPUs spawnbench was allowed; null where unknown"),
	int32Col("seq", func(r *ProcessRun) *int32 { return &r.Seq }).doc("the process's position in its invocation's run order"),
	addedLater(int32Col("occasion", func(r *ProcessRun) *int32 { return &r.Occasion })).doc("the occasion the process ran on, from 1: a block of its run (schedule.occasions) or, merged with merge --occasions, a run of its own; 0 in sets older than occasions; occasions are a level above processes and below machines"),
	int32Col("invocation", func(r *ProcessRun) *int32 { return &r.Invocation }).doc("the invocation that ran it (provenance.json's invocations[].id)"),
	optInt64Col("user_ns", func(r *ProcessRun) **int64 { return &r.UserNS }).doc("user CPU time of the benchmark's whole process tree, ns; null where the platform cannot tell"),
	optInt64Col("sys_ns", func(r *ProcessRun) **int64 { return &r.SysNS }).doc("system CPU time of the benchmark's whole process tree, ns"),
	optInt64Col("max_rss_bytes", func(r *ProcessRun) **int64 { return &r.MaxRSSBytes }).doc("the largest resident set of the tree's processes, bytes"),
	optInt64Col("ctx_switches_involuntary", func(r *ProcessRun) **int64 { return &r.CtxSwitchesInvoluntary }).doc("involuntary context switches of the tree"),
	optInt64Col("others_cpu_ns", func(r *ProcessRun) **int64 { return &r.OthersCPUNS }).doc("CPU time everything else on the machine used during the process's span (/proc/stat, 10 ms ticks), ns"),
	optInt64Col("steal_ns", func(r *ProcessRun) **int64 { return &r.StealNS }).doc("the hypervisor's steal during the process's span, ns"),
	addedLater(optInt64Col("own_work_ns", func(r *ProcessRun) **int64 { return &r.OwnWorkNS })).doc("the part of others_cpu_ns that spawnbench's own starting and ending of a process costs, measured at the invocation's start, ns; the busy rule subtracts it"),
	dictStringCol("machine", func(r *ProcessRun) *string { return &r.Machine }).doc("the ID of the machine that ran it (provenance.json's invocations[].machine); part of every key"),
	addedLater(optInt64Col("first_spawn_ns", func(r *ProcessRun) **int64 { return &r.FirstSpawnNS })).doc("the process's first spawn_ns; null for a process that printed none"),
	addedLater(optInt64Col("typical_spawn_ns", func(r *ProcessRun) **int64 { return &r.TypicalSpawnNS })).doc("the process as one number: the 20% trimmed mean of its spawn times, ns, rounded; what reports compute figures and intervals over; null for a process that printed no spawn"),
	addedLater(optFloat64PtrCol("spawn_log_var", func(r *ProcessRun) **float64 { return &r.SpawnLogVar })).doc("the variance of the natural logarithms of the process's spawn times (a spawn of 0 ns or less counts as 1 ns): the within-process level of a cell's variance components; null for fewer than two spawns"),
	addedLater(optInt64Col("renderer_pid", func(r *ProcessRun) **int64 { return &r.RendererPID })).doc("the OS process id of the renderer that ran a page (a browser host's repetition), so that each repetition can be seen to have had one of its own; null for a process, and in sets older than the column"),
	addedLater(dictStringCol("placement", func(r *ProcessRun) *string { return &r.Placement })).doc("free (the environment as declared: the scheduler places its threads) or one-cpu (its twin of the spec's placement block, every thread on one CPU); empty in sets older than the column"),
	addedLater(dictStringCol("placement_of", func(r *ProcessRun) *string { return &r.PlacementOf })).doc("for a one-cpu twin, the environment it measures pinned; empty otherwise"),
	addedLater(optInt64Col("settle_ns", func(r *ProcessRun) **int64 { return &r.SettleNS })).doc("how long the run waited before the process, the cell's pause included, for the machine's other work to fall below schedule.settle's bar, ns; null where it did not settle"),
	addedLater(optFloat64PtrCol("settle_others_cpus", func(r *ProcessRun) **float64 { return &r.SettleOthersCPUs })).doc("the machine's other work over the settle step's last window, in CPUs: at most the bar unless the wait reached its cap; null where it did not settle"),
	addedLater(optInt64Col("refused_requests", func(r *ProcessRun) **int64 { return &r.RefusedRequests })).doc("the requests a page's server refused (403) because they lacked the page's secret: someone else's (another local user, a web page in another browser), never the page's own, and none of them reached the page; the error column describes the first few; null for a process, and in sets older than the column"),
	addedLater(boolCol("traced", func(r *ProcessRun) *bool { return &r.Traced })).doc("true when the process's spawns were traced in the kernel (an \"@traced\" environment of the spec's anatomy block) and samples.parquet's task_* columns filled; false otherwise, and in sets older than the column"),
	addedLater(optStringCol("trace_note", func(r *ProcessRun) *string { return &r.TraceNote })).doc("why a process of a traced environment was not traced (not root, no tracefs, a clock that cannot be put on CLOCK_MONOTONIC, ...), or what limits its trace (events lost); null otherwise"),
}

var calibrationColumns = []column[CalibrationCheck]{
	stringCol("environment", func(r *CalibrationCheck) *string { return &r.Environment }).doc("the environment's name"),
	stringCol("kind", func(r *CalibrationCheck) *string { return &r.Kind }).doc("the short form of its (payload, host) pair"),
	dictStringCol("host", func(r *CalibrationCheck) *string { return &r.Host }).doc("what ran it"),
	int64Col("clock_step_ns", func(r *CalibrationCheck) *int64 { return &r.ClockStepNS }).doc("the host's declared clock step, ns: the coherence check's allowance on both bounds"),
	stringCol("check", func(r *CalibrationCheck) *string { return &r.Check }).doc("sleep (the clock measures a requested sleep) or coherence (0 <= spawn_ns <= joined_ns across threads)"),
	int32Col("process", func(r *CalibrationCheck) *int32 { return &r.Process }).doc("the check's 0-based repetition number: an index"),
	int64Col("requested_ns", func(r *CalibrationCheck) *int64 { return &r.RequestedNS }).doc("the requested sleep, ns (sleep checks), or the number of spawns (coherence checks)"),
	int64Col("measured_ns", func(r *CalibrationCheck) *int64 { return &r.MeasuredNS }).doc("what the benchmark clock recorded, ns (sleep), or the smallest spawn_ns seen (coherence)"),
	int64Col("wall_ns", func(r *CalibrationCheck) *int64 { return &r.WallNS }).doc("the process's wall time measured outside it, ns"),
	int64Col("low_ns", func(r *CalibrationCheck) *int64 { return &r.LowNS }).doc("the lowest passing measured_ns (sleep checks)"),
	int64Col("high_ns", func(r *CalibrationCheck) *int64 { return &r.HighNS }).doc("the highest passing measured_ns (sleep checks)"),
	int32Col("violations", func(r *CalibrationCheck) *int32 { return &r.Violations }).doc("spawns with spawn_ns < 0 or spawn_ns > joined_ns (coherence checks)"),
	boolCol("pass", func(r *CalibrationCheck) *bool { return &r.Pass }).doc("whether the check passed"),
	stringCol("detail", func(r *CalibrationCheck) *string { return &r.Detail }).doc("why a check failed, in words"),
	int32Col("invocation", func(r *CalibrationCheck) *int32 { return &r.Invocation }).doc("the calibrate invocation that made the check"),
	addedLater(optInt64Col("observed_step_ns", func(r *CalibrationCheck) **int64 { return &r.ObservedStepNS })).doc("the smallest step between two clock readings that differ, ns (a coarsened clock's grain; about the read cost for a fine one); null where not said"),
	addedLater(optInt64Col("clock_read_ns", func(r *CalibrationCheck) **int64 { return &r.ClockReadNS })).doc("the mean cost of one clock reading, ns; null where not said"),
}
