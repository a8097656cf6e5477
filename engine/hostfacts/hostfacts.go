// Package hostfacts holds the facts about hosts that more than one part
// of spawnbench states: the families reports group environments in and
// what their threads are where they are not OS threads, what a spawn in
// each starts (the answer groups by it), the
// clock steps of the JavaScript and browser hosts, and which hosts are
// browsers, whose processes start warm or cold. It imports nothing of
// spawnbench, so the environments (engine/env), the result files
// (engine/results), the costs (engine/cost) and the reports
// (engine/report) each read the one declaration.
package hostfacts

import "slices"

// Host families, in the order reports list them. A host declares its
// family (engine/env HostFacts), a payload that brings its own thread
// layer its own; each process row records the family it ran in.
const (
	Native     = "native"
	Wasmtime   = "Wasmtime"
	WAMR       = "WAMR"
	Wasmer     = "Wasmer" // its threads run on a pool of reused OS threads (engine/env/host_wasmer.go)
	Wazero     = "wazero"
	JSHosts    = "JS hosts"
	Emscripten = "Emscripten"
	RawWorkers = "raw workers"
	// CooperativeThreads: the component model's own threads (the
	// cm-threads payload), switched on one OS thread, never started as
	// one: a spawn here is not the OS-thread spawn the other families pay.
	CooperativeThreads = "cooperative threads"
	Other              = "other"
)

// Families lists the families in report order; a family a new host
// declares that is not listed comes after them, before Other.
var Families = []string{Native, Wasmtime, WAMR, Wasmer, Wazero, JSHosts, Emscripten, RawWorkers, CooperativeThreads, Other}

// Goroutines is what a wasm thread of the wazero family is: a goroutine,
// which Go's scheduler multiplexes onto its own OS threads, so a spawn
// there starts no OS thread of its own (unless the scheduler decides to).
const Goroutines = "goroutines"

// familyThreads names what the threads of a family are where they are
// not OS threads of their own, as every other family's are.
var familyThreads = map[string]string{Wazero: Goroutines}

// Threads is what family's threads are: "" for OS threads, else a kind
// such as Goroutines, which reports state beside the family's rows.
func Threads(family string) string { return familyThreads[family] }

// Spawn kinds: what a thread spawn starts, a fact of the family (the
// payload's where it brings its own thread layer, else the host's). The
// bottom line's answer groups environments by it, in this order, never
// by their figures, so every machine writes the same groups.
const (
	// SpawnOSThread: a new OS thread per spawn (native's peers: the
	// embedded Wasmtime, the Wasmtime CLIs, WAMR).
	SpawnOSThread = "os-thread"
	// SpawnPooledOSThread: an OS thread taken from a pool the runtime
	// keeps and reuses (Wasmer): the first spawns start OS threads, later
	// ones find one waiting, so a spawn is not a pthread_create's cost.
	SpawnPooledOSThread = "pooled-os-thread"
	// SpawnGoroutine: a goroutine per spawn (wazero). Apart from the OS
	// threads: Go's scheduler runs it on OS threads it already has, so a
	// spawn starts no thread of its own and its ratio to native compares
	// a goroutine's start with a pthread's; apart from the cooperative
	// threads too, since goroutines do run in parallel.
	SpawnGoroutine = "goroutine"
	// SpawnWorkerPerSpawn: a new worker started per spawn and ended with
	// its thread (the JavaScript and browser hosts' wasi-threads, raw
	// workers).
	SpawnWorkerPerSpawn = "worker-per-spawn"
	// SpawnReusedWorker: a worker started at the first spawn (or before
	// main, with a pool) and reused by the spawns after it (Emscripten).
	SpawnReusedWorker = "reused-worker"
	// SpawnCooperative: no thread at all, a switch of stacks on one OS
	// thread (the component model's threads).
	SpawnCooperative = "cooperative"
	// SpawnUnknown: a family that declares none (Other's commands).
	SpawnUnknown = "unknown"
)

// SpawnKinds lists the spawn kinds in the order the answer names them.
var SpawnKinds = []string{SpawnOSThread, SpawnPooledOSThread, SpawnGoroutine, SpawnWorkerPerSpawn, SpawnReusedWorker, SpawnCooperative, SpawnUnknown}

// familySpawn declares each family's spawn kind.
var familySpawn = map[string]string{
	Native: SpawnOSThread, Wasmtime: SpawnOSThread, WAMR: SpawnOSThread,
	Wasmer:  SpawnPooledOSThread,
	Wazero:  SpawnGoroutine,
	JSHosts: SpawnWorkerPerSpawn, RawWorkers: SpawnWorkerPerSpawn,
	Emscripten:         SpawnReusedWorker,
	CooperativeThreads: SpawnCooperative,
}

// Spawn is what a spawn in family starts (SpawnKinds), SpawnUnknown for a
// family that declares none.
func Spawn(family string) string {
	if k, ok := familySpawn[family]; ok {
		return k
	}
	return SpawnUnknown
}

// Clock steps of the hosts whose benchmark clock is JavaScript's, in ns.
const (
	// JSDoubleStepNS is the step of performance.timeOrigin +
	// performance.now() as a double of epoch milliseconds (about 1.7e12)
	// until 2043: 2^-12 ms, 244 ns, 256 once scaled to ns.
	JSDoubleStepNS = 256
	// ChromiumCoarseStepNS and FirefoxCoarseStepNS are how far each
	// browser coarsens performance.now() in a cross-origin-isolated page.
	ChromiumCoarseStepNS = 5_000
	FirefoxCoarseStepNS  = 20_000
)

// Browsers are the hosts that open pages (engine/env's page form, which a
// test holds equal): the hosts whose environments have a browser_start.
var Browsers = []string{"chromium", "firefox"}

// Browser says whether host is one of Browsers.
func Browser(host string) bool { return slices.Contains(Browsers, host) }

// The browser starts of the schema's browser_start: one browser kept open
// for every page of an environment, or a fresh one per page. Warm is the
// schema's default; sets written before the setting started every
// browser cold.
const (
	Warm = "warm"
	Cold = "cold"
)

// A host's own phases in a new thread, which it names in its "#phase"
// directives (c/sb.h) and the report sets under the trace's "in the new
// thread" part, in the order they happen. A host that times its own work
// adds its names here (and their words to engine/report/render); today
// only the embedded Wasmtime does (engine/wasmhost).
const (
	// PhaseThreadStart: the OS thread's start until it runs the host's
	// job (libc's thread start, the alternate signal stack).
	PhaseThreadStart = "thread_start"
	// PhaseStore: a Store and WASI context for the thread.
	PhaseStore = "store"
	// PhaseInstance: the module's instance over the shared memory.
	PhaseInstance = "instance"
	// PhaseGuestEntry: the call of wasi_thread_start until the guest's
	// first monotonic clock read.
	PhaseGuestEntry = "guest_entry"
)
