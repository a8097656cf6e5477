package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wasmer: the Wasmer CLI, one fresh `wasmer run MODULE -- n` process per
// repetition, on the wasi-threads payloads' very .wasm files (those the
// wamr and wasmtime-cli hosts run), as Wasmer runs any wasi-threads
// module: its WASIX layer implements wasi's thread-spawn, threads are on
// by default, and no flag is passed.
//
// What a spawn is in Wasmer 7.4.2 (wasmer-wasix's thread_spawn and
// runtime/task_manager/tokio.rs): the caller's thread-spawn makes the
// thread's WASI environment, then hands the thread to a pool of OS
// threads (rusty_pool, sized max(200, 100 x CPUs), its threads kept once
// started); a pool thread makes the new Store and instance over the
// shared memory while the caller waits for it, and the caller returns
// once the instance is made, the pool thread going on to run
// wasi_thread_start. A thread that ends frees its OS thread for the next
// spawn, so after the first spawns a spawn reuses an OS thread where
// Wasmtime and WAMR start a new one: the report's family "Wasmer".
//
// Wasmer keeps compiled modules in a cache under $WASMER_DIR (by default
// ~/.wasmer): each process gets an empty WASMER_DIR of its own, as the
// deno host gives Deno its DENO_DIR, so no module compiled by an earlier
// process, the user's or another repetition's, is loaded instead of
// compiled, and every process starts alike. Wasmer saves the compiled
// module before the guest starts, so the cache costs a process's wall
// time, never a spawn's.
//
// Wasmer writes its own messages (an error, a trapped thread's "failed
// with runtime error") to standard error: standard output holds the
// benchmark's protocol lines alone. A trap in the main thread exits 45,
// one in a spawned thread ends the process with 129; both leave Wasmer's
// message in the process's stderr. The WASI clock the C code reads is
// clock_gettime(CLOCK_MONOTONIC) in every thread, one origin.
type wasmer struct{ cfg wasmerSettings }

type wasmerSettings struct {
	// Wasmer is the CLI: a command name looked up as toolPath says, or a
	// path.
	Wasmer string `json:"wasmer"`
	// WasmerFlags go after `run`, before the module.
	WasmerFlags []string `json:"wasmer_flags"`
}

// WasmerVersion is the release .ci/setup --with-wasmer builds (the Rust crate registry's
// wasmer-cli; 7.5.0 needs a newer rustc than these machines have).
const WasmerVersion = "7.4.2"

var wasmerInstall = fmt.Sprintf("bash .ci/setup --with-wasmer (builds the Rust crate registry's wasmer-cli %s with cargo >= 1.95, "+
	"--locked --features cranelift, into ~/.cache/spawnbench/tools/wasmer-%s, linked as bin/wasmer: "+
	"16-40 minutes on 2 cores, once per machine)", WasmerVersion, WasmerVersion)

func init() {
	RegisterHost("wasmer", "the Wasmer CLI (wasmer run, wasi-threads on a pool of OS threads)", FormModule,
		HostFacts{Family: hostfacts.Wasmer, ClockStepNS: 1, Install: wasmerInstall},
		func(cfg wasmerSettings) Host { return &wasmer{cfg: cfg} })
}

func (h *wasmer) Toolchain(ctx context.Context) Toolchain {
	tc := probedToolchain(ctx, h.cfg.Wasmer, wasmerInstall, h.probe)
	if tc.Present {
		tc.Version += h.backends(ctx)
	}
	return tc
}

// backends is " (runtimes: Cranelift)" of `wasmer -vV`: the compilers
// this wasmer was built with, which make its code, for the provenance.
func (h *wasmer) backends(ctx context.Context) string {
	path, err := toolPath(h.cfg.Wasmer)
	if err != nil {
		return ""
	}
	out, err := proc.ToolFact(ctx, path, "-vV")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "runtimes:") {
			return " (" + strings.TrimSpace(line) + ")"
		}
	}
	return ""
}

// probe runs one wasi-threads spawn (spawn_probe.wat) as the benchmarks
// are run, so a wasmer that cannot (built without a compiler backend, or
// flags that turn threads off) is found here, not at run time.
func (h *wasmer) probe(ctx context.Context, path string) error {
	dir, err := os.MkdirTemp("", "spawnbench-wasmer-")
	if err != nil {
		return fmt.Errorf("wasmer probe: %w", err)
	}
	defer os.RemoveAll(dir)
	said, err := runSpawnProbe(ctx, "wasmer", append([]string{path}, h.cfg.WasmerFlags...), func(module string) proc.Command {
		return h.command(path, dir, module, nil, nil)
	})
	if err != nil || said == "" {
		return err
	}
	if strings.Contains(said, "No backends support") {
		return fmt.Errorf("this wasmer has no compiler backend (cargo's default features build none): "+
			"build it with --features cranelift; the probe gave: %s", said)
	}
	return fmt.Errorf("wasmer cannot run a wasi-threads spawn; the probe gave: %s", said)
}

// command is `wasmer run [wasmer_flags] module -- args` with WASMER_DIR
// (and so its cache) in dir.
func (h *wasmer) command(path, dir, module string, args []string, cpus []int) proc.Command {
	argv := append([]string{path, "run"}, h.cfg.WasmerFlags...)
	argv = append(append(argv, module, "--"), args...)
	return proc.Command{Argv: argv, CPUs: cpus,
		Env: []string{"WASMER_DIR=" + dir, "WASMER_CACHE_DIR=" + filepath.Join(dir, "cache")}}
}

func (h *wasmer) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Wasmer)
	if err != nil {
		return Outcome{}, fmt.Errorf("wasmer: %w", err)
	}
	dir, err := os.MkdirTemp("", "spawnbench-wasmer-")
	if err != nil {
		return Outcome{}, fmt.Errorf("wasmer: a private WASMER_DIR: %w", err)
	}
	defer os.RemoveAll(dir)
	c := h.command(path, dir, filepath.Join(r.BuildDir, e.File), e.Args, r.CPUs)
	c.Stdout = r.Stdout
	return proc.Run(ctx, c)
}
