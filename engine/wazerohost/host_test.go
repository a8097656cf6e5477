package wazerohost_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"spawnbench/engine/wazerohost"
	"spawnbench/internal/fulltest"
)

// The exit semantics are about whole processes (other goroutines keep
// running or blocking in wasm), so those tests run `spawnbench wazero`,
// on both engines.
func spawnbench(t *testing.T) string {
	t.Helper()
	fulltest.Only(t, "builds spawnbench")
	return fulltest.Spawnbench(t)
}

// wat assembles a module (wasmtime-go's WAT reader: wazero has none).
func wat(t *testing.T, text string) []byte {
	t.Helper()
	wasm, err := wasmtime.Wat2Wasm(text)
	if err != nil {
		t.Fatalf("WAT: %v", err)
	}
	return wasm
}

// guest writes a wasi-threads module of fields: an imported shared
// memory, thread-spawn and a few WASI calls. Address 0 is never written,
// so a wait on it blocks forever.
func guest(t *testing.T, fields string) string {
	t.Helper()
	wasm := wat(t, `(module
  (import "env" "memory" (memory 1 1 shared))
  (export "memory" (memory 0))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (func $block_forever (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
`+fields+`)`)
	path := filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs spawnbench wazero with args on each engine and calls check on
// each's result.
func run(t *testing.T, check func(t *testing.T, r result), args ...string) {
	t.Helper()
	bin := spawnbench(t)
	for _, engine := range []wazerohost.Engine{wazerohost.Compiler, wazerohost.Interpreter} {
		t.Run(string(engine), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"wazero", "--engine", string(engine)}, args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			r := result{stdout: stdout.String(), stderr: stderr.String()}
			if ctx.Err() != nil {
				t.Fatalf("spawnbench wazero %v did not end: stderr %q", args, r.stderr)
			}
			r.code = fulltest.ExitCode(t, err)
			check(t, r)
		})
	}
}

// Whichever thread ends the program decides its exit code at once, while
// the others block: proc_exit's code, 0 for a return from _start, 134 and
// the trap's message naming the thread for a trap.
func TestAnyThreadEndsTheProcess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fields string
		code         int
		says         []string
	}{
		{"proc_exit on a child", `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32) (call $exit (i32.const 7)))`, 7, nil},
		{"proc_exit on main", `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $exit (i32.const 5)))
  (func (export "wasi_thread_start") (param i32 i32) (call $block_forever))`, 5, nil},
		{"return from _start", `
  (func (export "_start") (drop (call $spawn (i32.const 0))))
  (func (export "wasi_thread_start") (param i32 i32) (call $block_forever))`, 0, nil},
		{"trap on a child", `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (call $block_forever))
  (func (export "wasi_thread_start") (param i32 i32) unreachable)`, wazerohost.TrapExitCode, []string{"thread 1 trapped", "unreachable"}},
		{"trap on main", `
  (func (export "_start") (drop (call $spawn (i32.const 0))) (drop (i32.div_u (i32.const 1) (i32.const 0))))
  (func (export "wasi_thread_start") (param i32 i32) (call $block_forever))`, wazerohost.TrapExitCode, []string{"the main thread trapped", "divide by zero"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *testing.T, r result) {
				if r.code != c.code {
					t.Errorf("exit code %d, want %d; stderr %q", r.code, c.code, r.stderr)
				}
				for _, s := range c.says {
					if !strings.Contains(r.stderr, s) {
						t.Errorf("stderr %q does not say %q", r.stderr, s)
					}
				}
			}, guest(t, c.fields))
		})
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
	run(t, func(t *testing.T, r result) {
		if r.code != 4 || r.stdout != "child\n" {
			t.Errorf("exit code %d, stdout %q: want 4 (argc of guest.wasm a b c, read on the child) and %q; stderr %q", r.code, r.stdout, "child\n", r.stderr)
		}
	}, wasm, "a", "b", "c")
}

// Thread ids are positive and ascending; each spawn passes its own id and
// argument to wasi_thread_start, which the child stores for main to check.
func TestSpawnPassesItsIDAndArgument(t *testing.T) {
	t.Parallel()
	// Exit code: 10*ok(first id > 0) + 10*ok(second id > first) +
	// 1*ok(the second child saw its id and argument 77).
	wasm := guest(t, `
  (func (export "_start") (local $a i32) (local $b i32)
    (local.set $a (call $spawn (i32.const 0)))
    (local.set $b (call $spawn (i32.const 77)))
    (drop (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const 10000000000)))
    (call $exit (i32.add (i32.add
      (i32.mul (i32.gt_s (local.get $a) (i32.const 0)) (i32.const 10))
      (i32.mul (i32.gt_s (local.get $b) (local.get $a)) (i32.const 10)))
      (i32.and (i32.eq (i32.atomic.load (i32.const 68)) (local.get $b)) (i32.eq (i32.atomic.load (i32.const 72)) (i32.const 77))))))
  (func (export "wasi_thread_start") (param $id i32) (param $arg i32)
    (if (i32.eq (local.get $arg) (i32.const 77)) (then
      (i32.atomic.store (i32.const 68) (local.get $id))
      (i32.atomic.store (i32.const 72) (local.get $arg))
      (i32.atomic.store (i32.const 64) (i32.const 1))
      (drop (memory.atomic.notify (i32.const 64) (i32.const 1)))))
    (call $block_forever))`)
	run(t, func(t *testing.T, r result) {
		if r.code != 21 {
			t.Errorf("exit code %d, want 21 (ids 1 and 2 ascending, the second child saw its id and 77); stderr %q", r.code, r.stderr)
		}
	}, wasm)
}

// --placement prints one #cpu directive per spawn after the module's own
// output, each with two CPU numbers.
func TestPlacementNotesEachThreadsCPUs(t *testing.T) {
	t.Parallel()
	wasm := guest(t, `
  (func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 128)))
    (drop (call $spawn (i32.const 0)))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 128)))
    (drop (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const 10000000000)))
    (drop (memory.atomic.wait32 (i32.const 64) (i32.const 1) (i64.const 10000000000))))
  (func (export "wasi_thread_start") (param i32 i32)
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 136)))
    (drop (i32.atomic.rmw.add (i32.const 64) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 64) (i32.const 1))))`)
	line := regexp.MustCompile(`^#cpu ([12]) \d+ \d+$`)
	run(t, func(t *testing.T, r result) {
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) != 2 || !line.MatchString(lines[0]) || !line.MatchString(lines[1]) {
			t.Errorf("exit %d, stdout %q: want two #cpu lines with both CPUs known; stderr %q", r.code, r.stdout, r.stderr)
		}
	}, "--placement", wasm)
}

func TestTheCommandNamesAnInvalidModule(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.wasm")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, func(t *testing.T, r result) {
		if r.code == 0 || !strings.Contains(r.stderr, "bad.wasm") || !strings.Contains(r.stderr, "not a WebAssembly module wazero can compile") {
			t.Errorf("exit %d, stderr %q: want failure naming the file and the problem", r.code, r.stderr)
		}
	}, path)
}

// Load says what makes a module no wasi-threads program, in words that
// name the fix.
func TestLoadRejectsWhatIsNotAWasiThreadsModule(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "assembles WAT with wasmtime-go")
	for _, c := range []struct{ name, wat, want string }{
		{"no memory import", `(module (memory 1) (export "memory" (memory 0)) (func (export "_start")))`, "imports no shared memory"},
		{"no maximum", `(module (import "env" "memory" (memory 1)) (export "memory" (memory 0)) (func (export "_start")))`, "has no maximum"},
		{"memory not exported", `(module (import "env" "memory" (memory 1 1 shared)) (func (export "_start")))`, `does not export its memory as "memory"`},
		{"no _start", `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0)))`, "exports no _start"},
		{"other import", `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0))
			(import "env" "f" (func)) (func (export "_start")))`, "import env.f is neither WASI preview1 nor wasi.thread-spawn"},
		{"no wasi_thread_start", `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0))
			(import "wasi" "thread-spawn" (func (param i32) (result i32))) (func (export "_start")))`, "exports no wasi_thread_start"},
		{"wrong wasi_thread_start", `(module (import "env" "memory" (memory 1 1 shared)) (export "memory" (memory 0))
			(import "wasi" "thread-spawn" (func (param i32) (result i32))) (func (export "_start"))
			(func (export "wasi_thread_start") (param i32)))`, "not a function (i32, i32) -> ()"},
	} {
		_, err := wazerohost.Load(wat(t, c.wat), wazerohost.Options{Engine: wazerohost.Interpreter})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := wazerohost.Load(nil, wazerohost.Options{Engine: "jit"}); err == nil || !strings.Contains(err.Error(), `unknown engine "jit"`) {
		t.Errorf("engine jit: error %v, want it named unknown", err)
	}
}

// The memory stands in for the embedder's under whatever name the guest
// imports it.
func TestSharedMemoryUnderAnyImportName(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "assembles WAT with wasmtime-go")
	p, err := wazerohost.Load(wat(t, `(module (import "host" "mem" (memory 2 40 shared)) (export "memory" (memory 0))
		(import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
		(func (export "_start") (call $exit (i32.add (memory.size) (i32.const 40)))))`), wazerohost.Options{Engine: wazerohost.Interpreter})
	if err != nil {
		t.Fatal(err)
	}
	if code := p.Run(); code != 42 {
		t.Errorf("exit code %d, want 42 (40 + the memory's 2 pages)", code)
	}
}
