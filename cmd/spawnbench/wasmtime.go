package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"spawnbench/engine/protocol"
	"spawnbench/engine/wasmhost"
)

// newWasmtimeCmd is the command that runs one wasi-threads module on the
// embedded Wasmtime host. It is the process the wasi-threads environment
// starts for every repetition, and it exits with the module's own exit
// code.
func newWasmtimeCmd(c *cli) *cobra.Command {
	var opts wasmtimeFlags
	cmd := &cobra.Command{
		Use:   "wasmtime FILE.wasm [ARGS...]",
		Short: "Run a wasi-threads module on the embedded Wasmtime host",
		// The process the wasi-threads environment starts, not a command a
		// user types: hidden from the command list, documented in docs/cli.md.
		Hidden:  true,
		Example: `  spawnbench wasmtime build/sequential.wasm 10   # what the wasi-threads environment runs`,
		Long: `Wasmtime is the process the wasi-threads and wasi-libc environments
start, not a command a user types, so the command list does not show it:
a wasi-threads runtime on Wasmtime's C API (docs/environments.md). It runs
a wasi-threads module (imported shared memory, wasi.thread-spawn,
exported wasi_thread_start) with one Wasmtime Store and instance per thread.
The process exits with the module's exit code: proc_exit's code on any
thread, 0 when _start returns, 134 when any thread traps and 1 when a host function
fails (a WASI call given a bad pointer), as the Wasmtime CLI does; the
message goes to stderr. A thread-spawn past --max-threads or the pool's
slots returns a negative id (pthread_create's EAGAIN).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("wasmtime: give the module to run, e.g. spawnbench wasmtime build/sequential.wasm 10; run `spawnbench wasmtime --help`")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return runWasmtime(c, &opts, args) },
	}
	wasmtimeFlagsOf(cmd, &opts)
	return cmd
}

// wasmtimeFlags are the flags of spawnbench wasmtime.
type wasmtimeFlags struct {
	threads     string
	instantiate string
	allocation  string
	maxThreads  int
	poolSize    int
	prestart    int
	trace       bool
	placement   bool
	phases      bool
	spin        time.Duration
	env         []string
}

func init() { commands = append(commands, newWasmtimeCmd) }

// wasmtimeFlagsOf adds the flags of spawnbench wasmtime to cmd, into opts.
func wasmtimeFlagsOf(cmd *cobra.Command, opts *wasmtimeFlags) {
	f := cmd.Flags()
	f.SetInterspersed(false)
	f.StringVar(&opts.threads, "threads", string(wasmhost.Fresh),
		`how a wasm thread gets an OS thread: "fresh" (a new OS thread per spawn, as Wasmtime does) or "reuse" (finished OS threads wait for the next spawn: a pool no shipping runtime uses)`)
	f.StringVar(&opts.instantiate, "instantiate", string(wasmhost.Child),
		`where a new thread's instance is made: "child" (on the new thread) or "parent" (inside thread-spawn)`)
	f.StringVar(&opts.allocation, "allocation", string(wasmhost.OnDemand),
		`Wasmtime's instance allocator: "on-demand" or "pooling"`)
	f.IntVar(&opts.maxThreads, "max-threads", 0,
		"threads alive at once besides the main one; thread-spawn fails beyond it (0: no bound)")
	f.IntVar(&opts.poolSize, "pool-instances", 0,
		"with --allocation pooling: instances alive at once, the main thread's included (0: 4096); thread-spawn fails beyond it")
	f.IntVar(&opts.prestart, "prestart-threads", 0,
		"OS threads started before _start to wait for spawns (with --threads reuse)")
	f.DurationVar(&opts.spin, "spin", 0,
		"how long an idle OS thread polls for the next spawn before it sleeps (with --threads reuse)")
	f.BoolVar(&opts.trace, "trace", false,
		"report each spawn's phases (hand-off, OS thread running, Store and WASI context ready, instance ready, first clock read) and which path served each poll_oneoff, on stderr")
	f.BoolVar(&opts.placement, "placement", false,
		`after the module ends, print each spawned thread's CPUs on stdout as "#cpu K PARENT_CPU CHILD_CPU" lines (c/sb.h): the parent's at its first clock read after thread-spawn, the thread's at its own first clock read`)
	f.BoolVar(&opts.phases, "phases", false,
		`after the module ends, print where each spawned thread's phases in the new thread ended on stdout, as "#phase K NAME END_NS" lines (c/sb.h), END_NS on the guest's monotonic clock: thread_start (its OS thread running the host's code), store (its Store and WASI context ready), instance (its instance ready), guest_entry (its first clock read)`)
	f.StringArrayVar(&opts.env, "env", nil, "KEY=value for the module's environment (repeatable)")
}

func runWasmtime(c *cli, opts *wasmtimeFlags, args []string) error {
	wasm, err := os.ReadFile(args[0])
	if err != nil {
		return usageError{fmt.Errorf("wasmtime: %w", err)}
	}
	prog, err := wasmhost.Load(wasm, wasmhost.Options{
		Args:            append([]string{filepath.Base(args[0])}, args[1:]...),
		Env:             opts.env,
		Threads:         wasmhost.ThreadMode(opts.threads),
		Instantiate:     wasmhost.InstantiateOn(opts.instantiate),
		Allocation:      wasmhost.Allocation(opts.allocation),
		MaxThreads:      opts.maxThreads,
		PoolInstances:   opts.poolSize,
		Trace:           opts.trace,
		Placement:       opts.placement,
		Phases:          opts.phases,
		PrestartThreads: opts.prestart,
		Spin:            opts.spin,
	})
	if err != nil {
		return fmt.Errorf("wasmtime %s: %w", args[0], err)
	}
	// Exit at once, whatever the module's other threads are doing.
	code := prog.Run()
	if opts.placement {
		writePlacement(c, "wasmtime", prog.Placement(), func(p wasmhost.Placement) (int, int) { return p.ParentCPU, p.ChildCPU })
	}
	if opts.phases {
		writePhases(c, prog.Phases())
	}
	os.Exit(code)
	return nil
}

// writePhases prints each spawned thread's phase ends as "#phase"
// directives, in spawn order, leaving out those not noted (a thread that
// never read the clock).
func writePhases(c *cli, phases []wasmhost.Phases) {
	w := bufio.NewWriter(c.stdout)
	for i, ends := range phases {
		for j, end := range ends {
			if end > 0 {
				w.WriteString(protocol.PhaseDirective(i+1, wasmhost.PhaseNames[j], end))
			}
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "spawnbench wasmtime: write phases: %v\n", err)
	}
}

// writePlacement prints each spawned thread's CPUs as "#cpu" directives
// (c/sb.h), in spawn order, after the module's own lines: a host's
// output is written by the time it has an exit code.
func writePlacement[P any](c *cli, host string, placed []P, cpus func(P) (parent, child int)) {
	w := bufio.NewWriter(c.stdout)
	for i, p := range placed {
		parent, child := cpus(p)
		w.WriteString(protocol.CPUDirective(i+1, parent, child))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "spawnbench %s: write placement: %v\n", host, err)
	}
}
