// Package wazerohost runs wasi-threads modules on wazero, the pure-Go
// WebAssembly runtime, for the wazero environments.
//
// This package is opinionated. wazero ships threads and atomics
// (experimental.CoreFeaturesThreads) but no wasi.thread-spawn: its users
// write one, and wazero's own threads example
// (experimental/features_example_test.go) shows the shape, an instance of
// the same compiled module per thread over the one shared memory, run on
// a goroutine. So here thread-spawn instantiates the module again on the
// caller, then starts a goroutine that calls wasi_thread_start: a wasm
// thread is a goroutine, which Go's scheduler runs on its own OS threads
// (at most GOMAXPROCS running at once), never an OS thread of its own, and
// a spawn's cost includes no thread creation unless Go's scheduler decides
// to start one. Nothing else departs from wazero's defaults but the
// clocks and sleeps, which are fake unless told (spawnbench needs every
// thread to read one real monotonic clock with one origin), and a yield,
// a no-op by default, which yields the goroutine. The process is the unit of failure, as in the embedded
// Wasmtime host (engine/wasmhost): proc_exit, a return from _start or a
// trap on any thread ends the whole program with one exit code.
package wazerohost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
	"golang.org/x/sys/unix"
)

// Engine is how wazero runs the module's code.
type Engine string

const (
	// Compiler compiles the module to machine code before it runs:
	// wazero's default on amd64 and arm64.
	Compiler Engine = "compiler"
	// Interpreter interprets the module: wazero's only engine elsewhere.
	Interpreter Engine = "interpreter"
)

// Options configure a Program.
type Options struct {
	// Args is the guest's argv; Args[0] is its program name.
	Args []string
	// Env is the guest's environment, "KEY=value".
	Env []string
	// Engine is wazero's engine; "" means Compiler.
	Engine Engine
	// Placement makes the host note, per thread, the CPU its parent was on
	// and the CPU it first ran on (see Program.Placement).
	Placement bool
}

// Placement is where one spawned thread and its parent ran: ParentCPU at
// the parent's first clock read after thread-spawn returned, ChildCPU at
// the thread's own first clock read, each noted after the reading. A
// goroutine may move to another OS thread, and so another CPU, at any
// call into Go; these are the CPUs at those two moments.
type Placement struct {
	ParentCPU, ChildCPU int
}

// TrapExitCode is the exit code of a program whose thread trapped: 128 +
// SIGABRT, as the Wasmtime CLI and the embedded Wasmtime host use, so
// callers can tell a trap from an exit the guest chose. Trap messages go
// to the process's stderr.
const TrapExitCode = 134

// maxThreadID is the largest id wasi-threads allows (ids are positive
// i32s with the top two bits clear).
const maxThreadID = 0x1FFFFFFF

// errnoAgain is WASI's EAGAIN: thread-spawn returns it negated when it
// cannot make a thread, which pthread_create reports as EAGAIN.
const errnoAgain = 6

// Version is the embedded wazero's module version, from the build's
// module list.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/tetratelabs/wazero" {
				return dep.Version
			}
		}
	}
	return "(version unknown)"
}

// Program is one compiled wasi-threads module, ready to run once.
type Program struct {
	ctx  context.Context
	rt   wazero.Runtime
	code wazero.CompiledModule
	opts Options
	// origin is the clock's zero, shared by every thread (with Placement;
	// otherwise wazero's own system clock, whose origin is process-wide).
	origin time.Time
	// lastID is the last thread id given out.
	lastID atomic.Int32
	// exit receives the first exit code any thread decides.
	exit chan int

	mu sync.Mutex
	// placed is every spawned thread's placement, by id - 1.
	placed []Placement
}

// thread is one wasm thread's own state, touched only by the goroutine
// that runs it: its id, and with Placement whether its first clock read
// has been noted and which spawn's parent CPU its next read notes.
type thread struct {
	id         int32
	readOnce   bool
	spawnedNow int32
}

type threadKey struct{}

// Load compiles wasm, checks that it is a wasi-threads module, and
// instantiates what every thread imports: WASI preview1, thread-spawn and
// the shared memory.
func Load(wasm []byte, opts Options) (*Program, error) {
	if len(opts.Args) == 0 {
		opts.Args = []string{"main.wasm"}
	}
	ctx := context.Background()
	rt, err := newRuntime(ctx, opts.Engine)
	if err != nil {
		return nil, err
	}
	p := &Program{ctx: ctx, opts: opts, origin: time.Now(), exit: make(chan int, 1), rt: rt}
	code, err := p.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("not a WebAssembly module wazero can compile: %w", err)
	}
	p.code = code
	mem, err := checkShape(code)
	if err != nil {
		return nil, fmt.Errorf("not a wasi-threads module: %w", err)
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, p.rt); err != nil {
		return nil, fmt.Errorf("instantiate WASI preview1: %w", err)
	}
	_, err = p.rt.NewHostModuleBuilder("wasi").NewFunctionBuilder().
		WithGoFunction(api.GoFunc(p.spawn), []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export("thread-spawn").Instantiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("instantiate wasi.thread-spawn: %w", err)
	}
	// wazero cannot make a memory from Go: a module of one exported shared
	// memory, with the import's limits, stands in for the embedder's.
	if _, err := p.rt.InstantiateWithConfig(ctx, sharedMemoryModule(mem), wazero.NewModuleConfig().WithName(mem.module)); err != nil {
		return nil, fmt.Errorf("make the shared memory %s.%s: %w", mem.module, mem.name, err)
	}
	return p, nil
}

// newRuntime is a wazero runtime with threads on the engine asked for.
// wazero's compiler panics where it cannot run (it needs amd64 with
// SSE4.1, or arm64 with its atomics for threads): that is an error here.
func newRuntime(ctx context.Context, engine Engine) (rt wazero.Runtime, err error) {
	var cfg wazero.RuntimeConfig
	switch engine {
	case "", Compiler:
		cfg = wazero.NewRuntimeConfigCompiler()
	case Interpreter:
		cfg = wazero.NewRuntimeConfigInterpreter()
	default:
		return nil, fmt.Errorf("unknown engine %q (want %q or %q)", engine, Compiler, Interpreter)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("wazero's %s cannot run on %s/%s (%v): use the %s", engine, runtime.GOOS, runtime.GOARCH, r, Interpreter)
		}
	}()
	return wazero.NewRuntimeWithConfig(ctx, cfg.WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesThreads)), nil
}

// Check says whether engine can run threads on this machine, by making a
// runtime of it.
func Check(engine Engine) error {
	ctx := context.Background()
	rt, err := newRuntime(ctx, engine)
	if err != nil {
		return err
	}
	return rt.Close(ctx)
}

// Run runs _start and returns the program's exit code as soon as any
// thread decides it: proc_exit's code, 0 when _start returns,
// TrapExitCode after a trap. Other goroutines may still be running; the
// caller ends the process. Run may be called once.
func (p *Program) Run() int {
	main := &thread{}
	mod, err := p.instantiate(main)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench wazero: instantiate the main thread: %v\n", err)
		return 1
	}
	go func() {
		_, err := mod.ExportedFunction("_start").Call(context.WithValue(p.ctx, threadKey{}, main))
		p.end(main, err)
	}()
	return <-p.exit
}

// Placement returns every spawned thread's placement, in spawn order
// (thread ids 1, 2, ...), as noted so far; nil unless Options.Placement.
// It may be called after Run, while threads still run.
func (p *Program) Placement() []Placement {
	if !p.opts.Placement {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Placement(nil), p.placed...)
}

// instantiate makes one thread's instance: anonymous (wazero registers
// named instances, and every thread's shares the module's name), with
// real clocks, sleeps and yields, the process's stdout and stderr.
func (p *Program) instantiate(t *thread) (api.Module, error) {
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions().
		WithArgs(p.opts.Args...).WithStdout(os.Stdout).WithStderr(os.Stderr).
		WithSysWalltime().WithSysNanosleep().
		// A wasm thread is a goroutine: a yield lets Go run another.
		WithOsyield(runtime.Gosched)
	for _, kv := range p.opts.Env {
		k, v, _ := strings.Cut(kv, "=")
		cfg = cfg.WithEnv(k, v)
	}
	if p.opts.Placement {
		cfg = cfg.WithNanotime(func() int64 {
			now := int64(time.Since(p.origin))
			p.noteRead(t)
			return now
		}, 1)
	} else {
		cfg = cfg.WithSysNanotime()
	}
	return p.rt.InstantiateModule(p.ctx, p.code, cfg)
}

// spawn is wasi.thread-spawn: it makes the new thread's instance on the
// caller, so a failed instantiation is a failed spawn (a negative id),
// then runs wasi_thread_start(id, arg) on a new goroutine.
func (p *Program) spawn(ctx context.Context, stack []uint64) {
	arg := api.DecodeI32(stack[0])
	id := p.lastID.Add(1)
	if id > maxThreadID || id <= 0 {
		stack[0] = api.EncodeI32(-errnoAgain)
		return
	}
	t := &thread{id: id}
	mod, err := p.instantiate(t)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench wazero: thread-spawn %d: %v\n", id, err)
		stack[0] = api.EncodeI32(-errnoAgain)
		return
	}
	if p.opts.Placement {
		p.mu.Lock()
		for len(p.placed) < int(id) {
			p.placed = append(p.placed, Placement{ParentCPU: -1, ChildCPU: -1})
		}
		p.mu.Unlock()
		if parent, ok := ctx.Value(threadKey{}).(*thread); ok {
			parent.spawnedNow = id
		}
	}
	go func() {
		_, err := mod.ExportedFunction("wasi_thread_start").Call(context.WithValue(p.ctx, threadKey{}, t), uint64(id), uint64(uint32(arg)))
		if err != nil {
			p.end(t, err)
			return
		}
		// The thread is done; its instance's memory is the shared one.
		_ = mod.Close(p.ctx)
	}()
	stack[0] = api.EncodeI32(id)
}

// end decides the program's exit code from what ended thread t: a return
// from _start (err nil, main thread only), proc_exit or a trap.
func (p *Program) end(t *thread, err error) {
	code := 0
	var exit *sys.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = int(exit.ExitCode())
	default:
		code = TrapExitCode
		if t.id == 0 {
			fmt.Fprintf(os.Stderr, "spawnbench wazero: the main thread trapped: %v\n", err)
		} else {
			fmt.Fprintf(os.Stderr, "spawnbench wazero: thread %d trapped: %v\n", t.id, err)
		}
	}
	select {
	case p.exit <- code:
	default: // another thread decided first
	}
}

// noteRead notes, after a clock reading of thread t, the CPU it runs on
// if this is its first reading, and as its pending spawn's parent CPU if
// it spawned since its last reading.
func (p *Program) noteRead(t *thread) {
	first := t.id != 0 && !t.readOnce
	t.readOnce = true
	parentOf := t.spawnedNow
	t.spawnedNow = 0
	if !first && parentOf == 0 {
		return
	}
	cpu := currentCPU()
	p.mu.Lock()
	defer p.mu.Unlock()
	if first {
		p.placed[t.id-1].ChildCPU = cpu
	}
	if parentOf != 0 {
		p.placed[parentOf-1].ParentCPU = cpu
	}
}

// currentCPU is the CPU the calling OS thread runs on, -1 if unknown.
func currentCPU() int {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return -1
	}
	return int(cpu)
}
