package wasmhost_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"
	"golang.org/x/sys/unix"

	"spawnbench/engine/wasmhost"
)

// The exit semantics are about whole processes (other threads keep
// running or blocking in wasm), so those tests run `spawnbench wasmtime`.
func spawnbench(t *testing.T) string {
	t.Helper()
	fulltest.Only(t, "builds spawnbench")
	return fulltest.Spawnbench(t)
}

// guest wraps module fields in a wasi-threads module: an imported shared
// memory, thread-spawn and proc_exit. Address 0 is never written, so a
// wait on it blocks forever.
func guest(t *testing.T, fields string) string {
	t.Helper()
	fulltest.Only(t, "builds a guest with wasi-sdk")
	wat := `(module
  (import "env" "memory" (memory 1 1 shared))
  (export "memory" (memory 0))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (func $block_forever (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (func $spin_forever (loop $l (br $l)))
` + fields + `)`
	wasm, err := wasmtime.Wat2Wasm(wat)
	if err != nil {
		t.Fatalf("guest WAT: %v", err)
	}
	path := filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	bin := spawnbench(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"wasmtime"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("spawnbench wasmtime %v did not end: stderr %q", args, r.stderr)
	}
	r.code = fulltest.ExitCode(t, err)
	return r
}

func TestProcExitOnAChildEndsTheProcessWhileMainBlocks(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32) (call $exit (i32.const 7)))`)
	if r := run(t, wasm); r.code != 7 {
		t.Errorf("exit code %d, want 7 (the child's proc_exit); stderr %q", r.code, r.stderr)
	}
}

func TestProcExitOnMainEndsTheProcessWhileAChildSpins(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $exit (i32.const 5)))
  (func (export "wasi_thread_start") (param i32 i32) (call $spin_forever))`)
	if r := run(t, wasm); r.code != 5 {
		t.Errorf("exit code %d, want 5; stderr %q", r.code, r.stderr)
	}
}

func TestReturnFromStartExitsZeroWhileAChildSpins(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0))))
  (func (export "wasi_thread_start") (param i32 i32) (call $spin_forever))`)
	if r := run(t, wasm); r.code != 0 {
		t.Errorf("exit code %d, want 0; stderr %q", r.code, r.stderr)
	}
}

func TestTrapOnAChildEndsTheProcessWithTheMessage(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32) unreachable)`)
	r := run(t, wasm)
	if r.code != wasmhost.TrapExitCode {
		t.Errorf("exit code %d, want %d", r.code, wasmhost.TrapExitCode)
	}
	if !strings.Contains(r.stderr, "thread 1") || !strings.Contains(r.stderr, "unreachable") {
		t.Errorf("stderr %q does not name the thread and the trap", r.stderr)
	}
}

// A child sees the process's argv and writes to its stdout, and the write
// survives the exit that follows at once.
func TestWASIWorksOnAChild(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (data (i32.const 16) "\20\00\00\00\06\00\00\00") ;; iovec: 6 bytes at 32
  (data (i32.const 32) "child\n")
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32)
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 8)))
    (drop (call $args_sizes (i32.const 48) (i32.const 52)))
    (call $exit (i32.load (i32.const 48))))`)
	r := run(t, wasm, "a", "b", "c")
	if r.code != 4 {
		t.Errorf("exit code %d, want 4 (argc of guest.wasm a b c, read on the child); stderr %q", r.code, r.stderr)
	}
	if r.stdout != "child\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "child\n")
	}
}

// threeSpawns spawns three threads that block forever and exits with
// 10*ok(first id > 0) + 10*ok(second id > first) + 1*ok(third id < 0).
const threeSpawns = `
  (func (export "_start") (local $a i32) (local $b i32) (local $c i32)
    (local.set $a (call $spawn (i32.const 0)))
    (local.set $b (call $spawn (i32.const 0)))
    (local.set $c (call $spawn (i32.const 0)))
    (call $exit (i32.add (i32.add
      (i32.mul (i32.gt_s (local.get $a) (i32.const 0)) (i32.const 10))
      (i32.mul (i32.gt_s (local.get $b) (local.get $a)) (i32.const 10)))
      (i32.lt_s (local.get $c) (i32.const 0)))))
  (func (export "wasi_thread_start") (param i32 i32) (call $block_forever))`

// Thread ids are unique and positive; past --max-threads, thread-spawn
// returns a negative number instead of a thread.
func TestSpawnIDsAndFailure(t *testing.T) {
	t.Parallel()
	wasm := guest(t, threeSpawns)
	for _, mode := range [][]string{
		{"--threads", "reuse"},
		{"--threads", "fresh"},
		{"--threads", "reuse", "--prestart-threads", "2", "--instantiate", "parent"},
		{"--allocation", "pooling"},
		{"--spin", "50us"},
	} {
		args := append(append(mode, "--max-threads", "2"), wasm)
		if r := run(t, args...); r.code != 21 {
			t.Errorf("%v: exit code %d, want 21 (ids 1 and 2 ascending, third spawn refused); stderr %q", mode, r.code, r.stderr)
		}
	}
}

func TestTheCommandNamesAnInvalidModule(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.wasm")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, path)
	if r.code == 0 || !strings.Contains(r.stderr, "bad.wasm") || !strings.Contains(r.stderr, "not a valid WebAssembly module") {
		t.Errorf("exit %d, stderr %q: want failure naming the file and the problem", r.code, r.stderr)
	}
}

// --trace reports each thread's phases as comment lines, which the output
// protocol ignores.
func TestTraceReportsEachThread(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32) (call $exit (i32.const 0)))`)
	r := run(t, "--trace", wasm)
	if r.code != 0 || !strings.Contains(r.stderr, "# trace thread 1 ") {
		t.Errorf("exit %d, stderr %q: want a trace line for thread 1", r.code, r.stderr)
	}
}

func TestLoadRejectsWhatIsNotAWasiThreadsModule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, wat string
		bytes     []byte
		want      string
	}{
		{name: "not wasm", bytes: []byte("\x7fELF not wasm"), want: "not a valid WebAssembly module"},
		{name: "own memory", wat: `(module (memory (export "memory") 1) (func (export "_start")))`,
			want: "imports no shared memory"},
		{name: "unshared import", wat: `(module (import "env" "memory" (memory 1 1)) (func (export "_start")))`,
			want: "is not shared"},
		{name: "no _start", wat: `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0)))`,
			want: "exports no _start"},
		{name: "no memory export", wat: `(module (import "env" "memory" (memory 1 1 shared)) (func (export "_start")))`,
			want: `export its memory as "memory"`},
		{name: "no wasi_thread_start", wat: `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0))
			(import "wasi" "thread-spawn" (func (param i32) (result i32))) (func (export "_start")))`,
			want: "exports no wasi_thread_start"},
		{name: "foreign import", wat: `(module (import "env" "memory" (memory 1 1 shared))
			(import "env" "printf" (func)) (func (export "_start")))`,
			want: "env.printf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wasm := c.bytes
			if c.wat != "" {
				var err error
				if wasm, err = wasmtime.Wat2Wasm(c.wat); err != nil {
					t.Fatal(err)
				}
			}
			_, err := wasmhost.Load(wasm, wasmhost.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// Any import name works for the shared memory, and a module may run
// in-process: _start returning gives 0.
func TestSharedMemoryUnderAnyImportName(t *testing.T) {
	t.Parallel()
	wasm, err := wasmtime.Wat2Wasm(`(module
  (import "mem" "shared0" (memory 2 4 shared))
  (export "memory" (memory 0))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (func (export "_start")
    (if (call $clock (i32.const 1) (i64.const 1) (i32.const 65536)) (then unreachable))
    (if (i64.eqz (i64.load (i32.const 65536))) (then unreachable))))`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := wasmhost.Load(wasm, wasmhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if code := p.Run(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// sequentialSpawns is a guest that spawns 500 threads one after another,
// each joined (through a done flag at address 64) before the next spawn,
// and exits 0 if every spawn succeeded, 1 at the first refused one.
const sequentialSpawns = `
  (func (export "_start") (local $i i32)
    (loop $next
      (i32.atomic.store (i32.const 64) (i32.const 0))
      (if (i32.lt_s (call $spawn (i32.const 0)) (i32.const 0)) (then (call $exit (i32.const 1))))
      (loop $wait
        (if (i32.eqz (i32.atomic.load (i32.const 64)))
          (then (drop (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const -1))) (br $wait))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_s (local.get $i) (i32.const 500))))
    (call $exit (i32.const 0)))
  (func (export "wasi_thread_start") (param i32 i32)
    (i32.atomic.store (i32.const 64) (i32.const 1))
    (drop (memory.atomic.notify (i32.const 64) (i32.const 1))))`

// A child counts against --max-threads and the pool until its Store is
// gone, which is a moment after the guest's join returned: a sequential
// run must never be refused for the previous child.
func TestOneLiveThreadAtATimeNeverHitsTheLimit(t *testing.T) {
	t.Parallel()
	wasm := guest(t, sequentialSpawns)
	for _, mode := range [][]string{
		{"--threads", "fresh", "--max-threads", "1"},
		{"--threads", "reuse", "--max-threads", "1"},
		{"--threads", "fresh", "--allocation", "pooling", "--pool-instances", "2"},
		{"--threads", "reuse", "--allocation", "pooling", "--pool-instances", "2", "--instantiate", "parent"},
	} {
		if r := run(t, append(mode, wasm)...); r.code != 0 {
			t.Errorf("%v: exit %d, want 0 (all 500 sequential spawns succeed); stderr %q", mode, r.code, r.stderr)
		}
	}
}

// Past the pooling allocator's slots, thread-spawn fails (EAGAIN for
// pthread_create) instead of the process dying when the child cannot be
// instantiated.
func TestPoolExhaustionFailsTheSpawn(t *testing.T) {
	t.Parallel()
	// Exit code 21 as in TestSpawnIDsAndFailure: two spawns succeed, the
	// third is refused.
	wasm := guest(t, threeSpawns)
	for _, inst := range []string{"child", "parent"} {
		r := run(t, "--threads", "fresh", "--allocation", "pooling", "--pool-instances", "3", "--instantiate", inst, wasm)
		if r.code != 21 {
			t.Errorf("instantiate on %s: exit %d, want 21 (third spawn refused, process alive); stderr %q", inst, r.code, r.stderr)
		}
	}
}

// A child's trap is decided before a later _start return on the main
// thread can end the program with 0. The child wakes the main thread and
// then traps 5000 frames deep (a long backtrace to report); the main
// thread sleeps 50 ms (ample on a loaded machine), then returns. Before the fix the trap's report was
// formatted before the exit was claimed, leaving the return a window.
func TestATrapIsNotOvertakenByALaterExit(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (loop $wait
      (if (i32.eqz (i32.atomic.load (i32.const 64)))
        (then (drop (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const -1))) (br $wait))))
    ;; sleep 50 ms: one relative monotonic clock subscription at 128
    (i32.store (i32.const 144) (i32.const 1))
    (i64.store (i32.const 152) (i64.const 50000000))
    (drop (call $poll (i32.const 128) (i32.const 192) (i32.const 1) (i32.const 248))))
  (func $deep (param i32) (if (local.get 0) (then (call $deep (i32.sub (local.get 0) (i32.const 1)))) (else
    (i32.atomic.store (i32.const 64) (i32.const 1))
    (drop (memory.atomic.notify (i32.const 64) (i32.const 1)))
    unreachable)))
  (func (export "wasi_thread_start") (param i32 i32) (call $deep (i32.const 5000)))`)
	for i := 0; i < 10; i++ {
		if r := run(t, "--threads", "fresh", wasm); r.code != wasmhost.TrapExitCode {
			t.Fatalf("run %d: exit %d, want %d: the trap came before the return; stderr %q", i, r.code, wasmhost.TrapExitCode, r.stderr)
		}
	}
}

// clock_time_get behaves as Wasmtime 46's WASI: CPU-time clocks give
// BADF (8); a misaligned or out-of-bounds pointer and an unknown clock are
// errors that end the program with 1.
func TestClockTimeGetChecksItsArguments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		clock, ptr int
		want       int
	}{
		{"monotonic", 1, 64, 0},
		{"realtime", 0, 64, 0},
		{"process CPU time", 2, 64, 8},
		{"thread CPU time", 3, 64, 8},
		{"unknown clock", 9, 64, 1},
		{"misaligned", 1, 65, 1},
		{"last bytes of memory", 1, 65528, 0},
		{"past the end", 1, 65532, 1},
		{"far past the end", 1, -8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wasm := guest(t, fmt.Sprintf(`
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start") (call $exit (call $clock (i32.const %d) (i64.const 1) (i32.const %d))))`, c.clock, c.ptr))
			if r := run(t, wasm); r.code != c.want {
				t.Errorf("exit %d, want %d; stderr %q", r.code, c.want, r.stderr)
			}
		})
	}
}

// A sleep goes through the host's clock: a poll_oneoff of clock
// subscriptions only is served by the host's clock_nanosleep on
// CLOCK_MONOTONIC for exactly the time asked (Wasmtime's own WASI rounds a
// short sleep up to about a millisecond), as --trace reports, and it ends
// no earlier than asked. The guest exits with the time it measured around
// the poll in units of 100 µs, capped at 255; how far above the request
// that is depends on the machine's load, so it is only logged.
func TestSleepIsAsFineAsTheClock(t *testing.T) {
	t.Parallel()
	for _, sleepNs := range []int{1000, 1_000_000} {
		wasm := guest(t, fmt.Sprintf(`
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start") (local $d i64)
    ;; subscription at 128: userdata 0, tag 0 (clock), id 1, timeout, precision 1, flags 0
    (i32.store (i32.const 144) (i32.const 1))
    (i64.store (i32.const 152) (i64.const %d))
    (i64.store (i32.const 160) (i64.const 1))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 256)))
    (if (call $poll (i32.const 128) (i32.const 192) (i32.const 1) (i32.const 248)) (then unreachable))
    (if (i32.ne (i32.load (i32.const 248)) (i32.const 1)) (then unreachable))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 264)))
    (local.set $d (i64.div_u (i64.sub (i64.load (i32.const 264)) (i64.load (i32.const 256))) (i64.const 100000)))
    (if (i64.gt_u (local.get $d) (i64.const 255)) (then (local.set $d (i64.const 255))))
    (call $exit (i32.wrap_i64 (local.get $d))))`, sleepNs))
		r := run(t, "--trace", wasm)
		served := fmt.Sprintf("1 clock subscriptions served by the host: clock_nanosleep(CLOCK_MONOTONIC) for %d ns,", sleepNs)
		if !strings.Contains(r.stderr, served) || strings.Contains(r.stderr, "Wasmtime's WASI serves it") {
			t.Errorf("sleep of %d ns: the trace does not say the host slept exactly that on CLOCK_MONOTONIC; stderr %q", sleepNs, r.stderr)
		}
		// The poll returned one event without an error (or the guest
		// trapped), and the guest's clock saw at least the request.
		if strings.Contains(r.stderr, "unreachable") || r.code < sleepNs/100_000 {
			t.Errorf("sleep of %d ns: exit %d (the guest measured %d to %d µs); want at least the request, no trap; stderr %q",
				sleepNs, r.code, r.code*100, r.code*100+100, r.stderr)
		}
		t.Logf("sleep of %d ns: the guest measured %d to %d µs around it (load-dependent, not checked); %s",
			sleepNs, r.code*100, r.code*100+100, traceLine(r.stderr, "# trace poll_oneoff"))
	}
}

// traceLine returns the first line of stderr that starts with prefix.
func traceLine(stderr, prefix string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return "no " + prefix + " line"
}

// A poll that is not only clocks goes to Wasmtime's WASI, as --trace
// reports: a stdin read subscription on a closed stdin is ready at once.
func TestPollOnAFileGoesToWasmtime(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "wasi_thread_start") (param i32 i32))
  (func (export "_start")
    ;; subscription at 128: tag 1 (fd_read), fd 0
    (i32.store8 (i32.const 136) (i32.const 1))
    (i32.store (i32.const 144) (i32.const 0))
    (call $exit (i32.add (call $poll (i32.const 128) (i32.const 192) (i32.const 1) (i32.const 248))
      (i32.mul (i32.load (i32.const 248)) (i32.const 10)))))`)
	r := run(t, "--trace", wasm)
	if r.code != 10 {
		t.Errorf("exit %d, want 10 (errno 0, one event); stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "# trace poll_oneoff: 1 subscriptions, not only clocks: Wasmtime's WASI serves it") ||
		strings.Contains(r.stderr, "served by the host") {
		t.Errorf("the trace does not say Wasmtime's WASI served the poll; stderr %q", r.stderr)
	}
}

func TestModuleWhoseStartReturnsValuesIsRejected(t *testing.T) {
	t.Parallel()
	wasm, err := wasmtime.Wat2Wasm(`(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0))
  (func (export "_start") (result i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1
    i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1 i64.const 1))`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wasmhost.Load(wasm, wasmhost.Options{}); err == nil || !strings.Contains(err.Error(), "_start is not a function () -> ()") {
		t.Errorf("Load error %v, want one about _start's type", err)
	}
}

// capi.h declares Wasmtime's C API by hand; it must agree with the
// headers bundled in the wasmtime-go module the host links.
func TestCAPIMatchesWasmtimeHeaders(t *testing.T) {
	t.Parallel()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/bytecodealliance/wasmtime-go/v39").Output()
	if err != nil {
		t.Fatalf("find wasmtime-go: %v", err)
	}
	include := filepath.Join(strings.TrimSpace(string(dir)), "build", "include")
	out, err := exec.Command(cc, "-fsyntax-only", "-std=c11", "-Werror", "-I", include, filepath.Join("testdata", "capi_check.c")).CombinedOutput()
	if err != nil {
		t.Errorf("capi.h disagrees with %s: %v\n%s", include, err, out)
	}
}

// The host's clock and sleep write to the first imported memory; a module
// whose exported "memory" (which Wasmtime's WASI uses) is another memory
// is refused before _start runs.
func TestExportedMemoryMustBeTheImportedOne(t *testing.T) {
	t.Parallel()
	wasm, err := wasmtime.Wat2Wasm(`(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory $own 1 1 shared)
  (export "memory" (memory $own))
  (func (export "_start") (call $exit (i32.const 3))))`)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "two-memories.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, path)
	if r.code != 1 || !strings.Contains(r.stderr, `exported "memory" is not the first imported memory`) {
		t.Errorf("exit %d, stderr %q: want 1 and a message about the exported memory", r.code, r.stderr)
	}
}

func TestLoadRejectsAPoolWithNoSlotForAThread(t *testing.T) {
	t.Parallel()
	wasm, err := wasmtime.Wat2Wasm(`(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0)) (func (export "_start")))`)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, 1} {
		_, err := wasmhost.Load(wasm, wasmhost.Options{Allocation: wasmhost.Pooling, PoolInstances: n})
		if err == nil || !strings.Contains(err.Error(), "no slot for a spawned thread") {
			t.Errorf("pool instances %d: Load error %v, want one saying no thread fits", n, err)
		}
	}
}

// twoSpawnsOneReads spawns thread 1, which reads the clock and
// signals, then thread 2, which never reads it, and exits.
const twoSpawnsOneReads = `
  (func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 104)))
    (block $done (loop $wait
      (br_if $done (i32.atomic.load (i32.const 64)))
      (drop (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const -1)))
      (br $wait)))
    (drop (call $spawn (i32.const 1)))
    (call $exit (i32.const 0)))
  (func (export "wasi_thread_start") (param i32 i32)
    (if (i32.eqz (local.get 1)) (then
      (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 96)))
      (i32.atomic.store (i32.const 64) (i32.const 1))
      (drop (memory.atomic.notify (i32.const 64) (i32.const 1)))))
    (call $block_forever))`

// --placement prints, after the module's own output, one "#cpu" line per
// spawned thread: the parent's CPU at its first clock read after the
// spawn and the thread's at its own first clock read, each a CPU this
// process may run on, or -1 for a thread that never read the clock.
func TestPlacementNotesEachThreadsCPUs(t *testing.T) {
	t.Parallel()
	wasm := guest(t, twoSpawnsOneReads)
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^#cpu 1 (\d+) (\d+)\n#cpu 2 -1 -1\n$`)
	for _, mode := range [][]string{
		{"--threads", "fresh"},
		{"--threads", "reuse", "--prestart-threads", "2", "--instantiate", "parent"},
		{"--allocation", "pooling"},
	} {
		r := run(t, append(append(mode, "--placement"), wasm)...)
		m := line.FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want thread 1's CPUs and -1 -1 for thread 2", mode, r.code, r.stdout, r.stderr)
			continue
		}
		for _, s := range m[1:] {
			if cpu, _ := strconv.Atoi(s); !allowed.IsSet(cpu) {
				t.Errorf("%v: CPU %d is not one this process may run on (stdout %q)", mode, cpu, r.stdout)
			}
		}
	}
	// Without the flag the output is the module's own, as the CLI's is.
	if r := run(t, wasm); r.code != 0 || r.stdout != "" {
		t.Errorf("without --placement: exit %d, stdout %q; want 0 and nothing", r.code, r.stdout)
	}
}

// --phases prints, after the module's own output, one "#phase" line per
// phase of each spawned thread that read the clock, in the order they
// happen, their ends (CLOCK_MONOTONIC, as the guest reads it) not
// decreasing and within the process's life; nothing for a thread that
// never read the clock. Instantiated in the parent, the thread's Store
// takes no time in it.
func TestPhasesNoteEachThreadsPhasesInOrder(t *testing.T) {
	t.Parallel()
	wasm := guest(t, twoSpawnsOneReads)
	line := regexp.MustCompile(`^#phase 1 (\w+) (\d+)$`)
	for _, mode := range [][]string{
		{"--threads", "fresh"},
		{"--threads", "reuse", "--prestart-threads", "2", "--instantiate", "parent"},
		{"--allocation", "pooling", "--placement"},
	} {
		var before unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &before)
		r := run(t, append(append(mode, "--phases"), wasm)...)
		var after unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &after)
		var names []string
		var ends []int64
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if strings.HasPrefix(l, "#cpu ") {
				continue
			}
			m := line.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%v: stdout line %q is no phase of thread 1", mode, l)
				continue
			}
			end, _ := strconv.ParseInt(m[2], 10, 64)
			names, ends = append(names, m[1]), append(ends, end)
		}
		if r.code != 0 || !slices.Equal(names, wasmhost.PhaseNames) {
			t.Errorf("%v: exit %d, phases %v, want %v; stdout %q, stderr %q", mode, r.code, names, wasmhost.PhaseNames, r.stdout, r.stderr)
			continue
		}
		for i, end := range ends {
			if end < before.Nano() || end > after.Nano() || i > 0 && end < ends[i-1] {
				t.Errorf("%v: phase %s ends at %d: not in order within the process's life [%d, %d] (ends %v)", mode, names[i], end, before.Nano(), after.Nano(), ends)
			}
		}
		if mode[len(mode)-1] == "parent" && ends[1] != ends[0] {
			t.Errorf("%v: the store phase took time in the new thread (ends %v), though the parent made the Store", mode, ends)
		}
	}
}
