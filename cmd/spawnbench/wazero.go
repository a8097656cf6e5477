package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"spawnbench/engine/wazerohost"
)

// newWazeroCmd is the command that runs one wasi-threads module on
// wazero. It is the process the wazero environments start for every
// repetition, and it exits with the module's own exit code.
func newWazeroCmd(c *cli) *cobra.Command {
	var opts wazeroFlags
	cmd := &cobra.Command{
		Use:   "wazero FILE.wasm [ARGS...]",
		Short: "Run a wasi-threads module on wazero, the Go runtime",
		// The process the wazero environments start, not a command a user
		// types: hidden from the command list, documented in docs/cli.md.
		Hidden:  true,
		Example: `  spawnbench wazero build/sequential.wasm 10   # what the wazero environment runs`,
		Long: `Wazero is the process the wazero environments start, not a command a
user types, so the command list does not show it: a wasi-threads runtime on
wazero (docs/environments.md). wazero has no thread-spawn of its own; this
one instantiates the module again on the caller and runs
wasi_thread_start on a new goroutine, so a wasm thread is a goroutine on
Go's scheduler, not an OS thread of its own. The process exits with the
module's exit code: proc_exit's code on any thread, 0 when _start
returns, 134 when any thread traps, as the Wasmtime CLI does; the message
goes to stderr. A thread-spawn that cannot instantiate returns a negative
id (pthread_create's EAGAIN).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !opts.version {
				return usageError{fmt.Errorf("wazero: give the module to run, e.g. spawnbench wazero build/sequential.wasm 10; run `spawnbench wazero --help`")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return runWazero(c, &opts, args) },
	}
	wazeroFlagsOf(cmd, &opts)
	return cmd
}

// wazeroFlags are the flags of spawnbench wazero.
type wazeroFlags struct {
	engine    string
	placement bool
	version   bool
	env       []string
}

func init() { commands = append(commands, newWazeroCmd) }

// wazeroFlagsOf adds the flags of spawnbench wazero to cmd, into opts.
func wazeroFlagsOf(cmd *cobra.Command, opts *wazeroFlags) {
	f := cmd.Flags()
	f.SetInterspersed(false)
	f.StringVar(&opts.engine, "engine", string(wazerohost.Compiler),
		`wazero's engine: "compiler" (machine code, wazero's default here) or "interpreter"`)
	f.BoolVar(&opts.placement, "placement", false,
		`after the module ends, print each spawned thread's CPUs on stdout as "#cpu K PARENT_CPU CHILD_CPU" lines (c/sb.h): the parent's at its first clock read after thread-spawn, the thread's at its own first clock read`)
	f.BoolVar(&opts.version, "version", false,
		"print the embedded wazero's version and exit; fails, saying why, where --engine cannot run here")
	f.StringArrayVar(&opts.env, "env", nil, "KEY=value for the module's environment (repeatable)")
}

func runWazero(c *cli, opts *wazeroFlags, args []string) error {
	if opts.version {
		if err := wazerohost.Check(wazerohost.Engine(opts.engine)); err != nil {
			return fmt.Errorf("wazero: %w", err)
		}
		fmt.Fprintln(c.stdout, "wazero "+wazerohost.Version())
		return nil
	}
	wasm, err := os.ReadFile(args[0])
	if err != nil {
		return usageError{fmt.Errorf("wazero: %w", err)}
	}
	prog, err := wazerohost.Load(wasm, wazerohost.Options{
		Args:      append([]string{filepath.Base(args[0])}, args[1:]...),
		Env:       opts.env,
		Engine:    wazerohost.Engine(opts.engine),
		Placement: opts.placement,
	})
	if err != nil {
		return fmt.Errorf("wazero %s: %w", args[0], err)
	}
	// Exit at once, whatever the module's other goroutines are doing.
	code := prog.Run()
	if opts.placement {
		writePlacement(c, "wazero", prog.Placement(), func(p wazerohost.Placement) (int, int) { return p.ParentCPU, p.ChildCPU })
	}
	os.Exit(code)
	return nil
}
