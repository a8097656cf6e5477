// Package wasmhost runs wasi-threads modules on Wasmtime, embedded in
// spawnbench, for the wasi-threads environment.
//
// This package is opinionated: a wasm thread is a Store and an instance of
// the one compiled module over the one shared memory, on its own OS thread,
// as the wasi-threads proposal describes; the process is the unit of
// failure, so proc_exit, a return from _start or a trap on any thread ends
// the whole program at once with one exit code, however busy the other
// threads are; and every thread reads one monotonic clock with one origin,
// because spawnbench needs a child's reading minus its parent's to mean
// something. The spawn path is C over Wasmtime's C API (chost.c) and never
// enters Go: a Go host function call costs microseconds, as much as the
// rest of a spawn. wasmtime-go supplies the library and reads modules.
package wasmhost

/*
#cgo CFLAGS: -O2 -Wall
#include <stdlib.h>
#include "chost.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"spawnbench/engine/hostfacts"
)

// ThreadMode says how a wasm thread gets its OS thread.
type ThreadMode string

const (
	// Reuse lets an OS thread whose wasm thread ended wait for the next
	// spawn, as Go's scheduler keeps idle OS threads: a spawn then wakes a
	// thread instead of creating one.
	Reuse ThreadMode = "reuse"
	// Fresh gives every spawn a new OS thread that exits with its wasm
	// thread, as a native pthread_create does.
	Fresh ThreadMode = "fresh"
)

// InstantiateOn says which thread creates a new wasm thread's instance.
type InstantiateOn string

const (
	// Child instantiates on the new thread, after thread-spawn returned, so
	// the parent goes on at once and spawns overlap with instantiation.
	Child InstantiateOn = "child"
	// Parent instantiates inside thread-spawn, so a failed instantiation is
	// a failed spawn (a negative thread id) rather than a dead process.
	Parent InstantiateOn = "parent"
)

// Allocation is Wasmtime's instance allocation strategy.
type Allocation string

const (
	// OnDemand allocates each instance's state when it is made.
	OnDemand Allocation = "on-demand"
	// Pooling preallocates slots for PoolInstances live instances and
	// reuses them.
	Pooling Allocation = "pooling"
)

// Options configure a Program.
type Options struct {
	// Args is the guest's argv; Args[0] is its program name.
	Args []string
	// Env is the guest's environment, "KEY=value".
	Env []string
	// Threads says how wasm threads get OS threads; "" means Fresh, as
	// Wasmtime does.
	Threads ThreadMode
	// Instantiate says where a thread's instance is made; "" means Child.
	Instantiate InstantiateOn
	// Allocation is the instance allocator; "" means OnDemand.
	Allocation Allocation
	// PoolInstances sizes the pooling allocator (live instances, the main
	// thread's included); 0 means 4096. Spawns beyond it fail.
	PoolInstances int
	// MaxThreads bounds the threads alive at once besides the main one;
	// thread-spawn fails beyond it. 0 means no bound.
	MaxThreads int
	// PrestartThreads OS threads are started before _start and wait for
	// spawns (Reuse only), so the first spawns need not create one.
	PrestartThreads int
	// Spin is how long an idle OS thread polls for the next spawn before
	// it sleeps (Reuse only): a spawn it catches needs no wake-up.
	Spin time.Duration
	// Trace makes every thread report on stderr, as "# trace" comment
	// lines, when its spawn was handed over, its OS thread ran, its
	// instance was ready and it first read the clock; and every
	// poll_oneoff, which path served it (a sleep on the host's clock, or
	// Wasmtime's WASI).
	Trace bool
	// Placement makes the host note, per thread, the CPU its parent was on
	// and the CPU it first ran on (see Program.Placement).
	Placement bool
	// Phases makes the host note, per thread, where its own phases in the
	// new thread ended (see Program.Phases).
	Phases bool
}

// PhaseNames are the host's phases in a new thread (hostfacts), in the
// order they happen, as Program.Phases gives their ends: each begins
// where the one before ended, the first where the kernel first ran the
// thread.
var PhaseNames = []string{hostfacts.PhaseThreadStart, hostfacts.PhaseStore, hostfacts.PhaseInstance, hostfacts.PhaseGuestEntry}

// Phases are where one spawned thread's phases (PhaseNames' order) ended,
// CLOCK_MONOTONIC ns, the guest's clock; 0 where not noted.
type Phases [4]int64

// Placement is where one spawned thread and its parent ran: ParentCPU at
// the parent's first clock read after thread-spawn returned, ChildCPU at
// the thread's own first clock read, each noted after the reading; -1
// where not known.
type Placement struct {
	ParentCPU, ChildCPU int
}

// TrapExitCode is the exit code of a program whose thread trapped: 128 +
// SIGABRT, as the Wasmtime CLI uses, so callers can tell a trap from an
// exit the guest chose. Trap messages go to the process's stderr.
const TrapExitCode = 134

// Program is one compiled wasi-threads module, ready to run once.
type Program struct {
	host *C.sbh_host
	// cStrings are the C copies of argv, environment and import names,
	// which the C host uses for as long as the process lives.
	cStrings []unsafe.Pointer
	// placement and phases: Options.Placement and Options.Phases.
	placement, phases bool
}

// Load checks that wasm is a wasi-threads module, then compiles and links
// it so that a spawn only makes a Store and an instance.
func Load(wasm []byte, opts Options) (*Program, error) {
	copts := C.sbh_options{max_threads: C.int(opts.MaxThreads), prestart_threads: C.int(opts.PrestartThreads)}
	if opts.Trace {
		copts.trace = 1
	}
	if opts.Placement {
		copts.placement = 1
	}
	if opts.Phases {
		copts.phases = 1
	}
	copts.spin_ns = C.int64_t(opts.Spin.Nanoseconds())
	switch opts.Threads {
	case Reuse:
	case "", Fresh:
		copts.fresh_threads = 1
	default:
		return nil, fmt.Errorf("unknown thread mode %q (want %q or %q)", opts.Threads, Reuse, Fresh)
	}
	switch opts.Instantiate {
	case "", Child:
	case Parent:
		copts.instantiate_in_parent = 1
	default:
		return nil, fmt.Errorf("unknown instantiation site %q (want %q or %q)", opts.Instantiate, Child, Parent)
	}
	switch opts.Allocation {
	case "", OnDemand:
	case Pooling:
		copts.pooling = 1
		copts.pool_instances = 4096
		if opts.PoolInstances > 0 {
			copts.pool_instances = C.uint32_t(opts.PoolInstances)
		}
	default:
		return nil, fmt.Errorf("unknown allocation %q (want %q or %q)", opts.Allocation, OnDemand, Pooling)
	}
	if opts.PoolInstances < 0 || opts.PoolInstances == 1 {
		return nil, fmt.Errorf("pool instances %d leaves no slot for a spawned thread (want 0 for the default, or at least 2)", opts.PoolInstances)
	}
	if opts.MaxThreads < 0 || opts.PrestartThreads < 0 {
		return nil, fmt.Errorf("max threads %d and prestarted threads %d must not be negative", opts.MaxThreads, opts.PrestartThreads)
	}
	if opts.PrestartThreads > 0 && opts.Threads != Reuse {
		return nil, fmt.Errorf("prestarted threads need thread mode %q", Reuse)
	}
	if len(opts.Args) == 0 {
		opts.Args = []string{"main.wasm"}
	}

	shape, err := inspect(wasm)
	if err != nil {
		return nil, err
	}

	p := &Program{placement: opts.Placement, phases: opts.Phases}
	cstr := func(s string) *C.char {
		c := C.CString(s)
		p.cStrings = append(p.cStrings, unsafe.Pointer(c))
		return c
	}
	// C arrays: Go memory must not hold C-visible pointers past a call.
	cArray := func(ss []string) **C.char {
		if len(ss) == 0 {
			return nil
		}
		arr := (**C.char)(C.malloc(C.size_t(len(ss)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
		p.cStrings = append(p.cStrings, unsafe.Pointer(arr))
		elems := unsafe.Slice(arr, len(ss))
		for i, s := range ss {
			elems[i] = cstr(s)
		}
		return arr
	}
	argv := cArray(opts.Args)
	var names, values []string
	for _, kv := range opts.Env {
		k, v, _ := strings.Cut(kv, "=")
		names = append(names, k)
		values = append(values, v)
	}
	envNames, envValues := cArray(names), cArray(values)

	mems := (*C.sbh_memory)(C.calloc(C.size_t(len(shape.memories)), C.size_t(unsafe.Sizeof(C.sbh_memory{}))))
	p.cStrings = append(p.cStrings, unsafe.Pointer(mems))
	for i, m := range shape.memories {
		cm := &unsafe.Slice(mems, len(shape.memories))[i]
		cm.module, cm.name = cstr(m.module), cstr(m.name)
		cm.min_pages, cm.max_pages = C.uint64_t(m.min), C.uint64_t(m.max)
	}

	m0 := shape.memories[0]
	tramp, err := wasmtime.Wat2Wasm(fmt.Sprintf(`(module
  (import %q %q (memory %d %d shared))
  (export "memory" (memory 0))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (func (export "poll") (param i32 i32 i32 i32) (result i32)
    (call $poll (local.get 0) (local.get 1) (local.get 2) (local.get 3))))`, m0.module, m0.name, m0.min, m0.max))
	if err != nil {
		return nil, fmt.Errorf("poll_oneoff trampoline: %w", err)
	}
	cwasm, ctramp := C.CBytes(wasm), C.CBytes(tramp)
	defer C.free(cwasm)
	defer C.free(ctramp)
	var why *C.char
	p.host = C.sbh_new((*C.uint8_t)(cwasm), C.size_t(len(wasm)), (*C.uint8_t)(ctramp), C.size_t(len(tramp)),
		mems, C.size_t(len(shape.memories)),
		argv, C.size_t(len(opts.Args)), envNames, envValues, C.size_t(len(names)), copts, &why)
	if p.host == nil {
		msg := C.GoString(why)
		C.free(unsafe.Pointer(why))
		return nil, errors.New(msg)
	}
	return p, nil
}

// Run runs _start on a new thread and returns the program's exit code as
// soon as any thread decides it: proc_exit's code, 0 when _start returns,
// TrapExitCode after a trap. Other threads may still be running or
// blocked; the caller ends the process. Run may be called once.
func (p *Program) Run() int {
	return int(C.sbh_run(p.host))
}

// Placement returns every spawned thread's placement, in spawn order
// (thread ids 1, 2, ...), as noted so far; nil unless Options.Placement.
// It may be called after Run, while threads still run.
func (p *Program) Placement() []Placement {
	if !p.placement {
		return nil
	}
	n := int(C.sbh_spawned(p.host))
	out := make([]Placement, n)
	for i := range out {
		var parent, child C.int
		C.sbh_placement(p.host, C.int(i+1), &parent, &child)
		out[i] = Placement{ParentCPU: int(parent), ChildCPU: int(child)}
	}
	return out
}

// Phases returns every spawned thread's phase ends, in spawn order (thread
// ids 1, 2, ...), as noted so far: a thread's are noted together at its
// first monotonic clock read, after the reading. Nil unless
// Options.Phases. It may be called after Run, while threads still run.
func (p *Program) Phases() []Phases {
	if !p.phases {
		return nil
	}
	n := int(C.sbh_spawned(p.host))
	out := make([]Phases, n)
	var ends [C.SBH_PHASES]C.uint64_t
	for i := range out {
		C.sbh_phases(p.host, C.int(i+1), &ends[0])
		for j := range out[i] {
			out[i][j] = int64(ends[j])
		}
	}
	return out
}

// memoryImport is one imported memory of the guest.
type memoryImport struct {
	module, name string
	min, max     uint64
}

type moduleShape struct {
	memories []memoryImport
}

// inspect rejects, with a reason, what cannot run as a wasi-threads
// program, before the C host compiles it. wasmtime-go's module reflection
// does the reading; its engine is used for nothing else.
func inspect(wasm []byte) (moduleShape, error) {
	cfg := wasmtime.NewConfig()
	cfg.SetWasmThreads(true)
	m, err := wasmtime.NewModule(wasmtime.NewEngineWithConfig(cfg), wasm)
	if err != nil {
		return moduleShape{}, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	s, err := checkShape(m)
	if err != nil {
		return moduleShape{}, fmt.Errorf("not a wasi-threads module: %w", err)
	}
	return s, nil
}

// checkShape rejects, with a reason, a module that cannot run as a
// wasi-threads program, before anything is instantiated.
func checkShape(m *wasmtime.Module) (moduleShape, error) {
	var s moduleShape
	spawns := false
	for _, imp := range m.Imports() {
		name := ""
		if imp.Name() != nil {
			name = *imp.Name()
		}
		ty := imp.Type()
		switch {
		case ty.MemoryType() != nil:
			mt := ty.MemoryType()
			if !mt.IsShared() {
				return s, fmt.Errorf("memory import %s.%s is not shared (link with --shared-memory)", imp.Module(), name)
			}
			if mt.Is64() {
				return s, fmt.Errorf("memory import %s.%s is 64-bit; only wasm32 is supported", imp.Module(), name)
			}
			_, max := mt.Maximum()
			s.memories = append(s.memories, memoryImport{module: imp.Module(), name: name, min: mt.Minimum(), max: max})
		case ty.FuncType() != nil && imp.Module() == "wasi" && name == "thread-spawn":
			spawns = true
		case ty.FuncType() != nil && imp.Module() == "wasi_snapshot_preview1":
			// WASI preview1 defines these; instantiation checks names and types.
		default:
			return s, fmt.Errorf("import %s.%s is neither WASI preview1, wasi.thread-spawn nor a shared memory", imp.Module(), name)
		}
	}
	if len(s.memories) == 0 {
		return s, errors.New("it imports no shared memory (link with --import-memory --shared-memory)")
	}
	exports := map[string]*wasmtime.ExternType{}
	for _, e := range m.Exports() {
		exports[e.Name()] = e.Type()
	}
	if t, ok := exports["memory"]; !ok || t.MemoryType() == nil {
		// WASI preview1 reaches guest memory through this export.
		return s, errors.New(`it does not export its memory as "memory" (link with --export-memory)`)
	}
	if t, ok := exports["_start"]; !ok || t.FuncType() == nil {
		return s, errors.New("it exports no _start function")
	} else if len(t.FuncType().Params()) != 0 || len(t.FuncType().Results()) != 0 {
		// The host calls _start with no arguments and no room for results.
		return s, errors.New("its _start is not a function () -> ()")
	}
	if spawns {
		t, ok := exports["wasi_thread_start"]
		if !ok || t.FuncType() == nil {
			return s, errors.New("it imports wasi.thread-spawn but exports no wasi_thread_start function")
		}
		params, results := t.FuncType().Params(), t.FuncType().Results()
		if len(params) != 2 || params[0].Kind() != wasmtime.KindI32 || params[1].Kind() != wasmtime.KindI32 || len(results) != 0 {
			return s, errors.New("its wasi_thread_start is not a function (i32, i32) -> ()")
		}
	}
	return s, nil
}
