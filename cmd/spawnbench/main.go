// Command spawnbench measures how long it takes to spawn a thread in
// WebAssembly environments and natively. It only wires commands to the
// engine packages; see README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"spawnbench/cmd/spawnbench/internal/interrupt"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/internal/reexec"

	"github.com/spf13/cobra"
)

// version is the VCS revision of the checkout the binary was built from
// ("+dirty" when it had uncommitted changes), else the module version, as
// provenance records it. A build with neither (go run, -buildvcs=false)
// says so rather than pretending.
var version = func() string {
	const unknown = "unknown (built without VCS information; build with go build -buildvcs=true)"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return unknown
	}
	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	switch {
	case rev != "":
		return rev + dirty
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		return info.Main.Version
	}
	return unknown
}()

// newRoot is the spawnbench command for one invocation, c: a tree of its
// own, so no flag's value outlives the call; each subcommand's file adds
// its constructor to commands from its init function.
func newRoot(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "spawnbench",
		Short: "Measure thread spawn time in WebAssembly environments and natively",
		Long: `spawnbench measures how long a thread spawn takes once C is compiled to
WebAssembly (wasi-threads in Wasmtime and WAMR, the JavaScript wasi-threads
host, Emscripten, raw web workers; in Node.js, Bun, Deno, Chromium and
Firefox) against native pthreads, in fresh processes, and writes Parquet
result sets with a report whose bottom line comes first.

The workflow:

    spawnbench envs                          what can run here, how to install the rest
    spawnbench plan specs/quick.cue          the cells, processes and expected time, nothing run
    spawnbench run specs/quick.cue           build, measure, write results/<time>-quick/
    spawnbench report results/<dir>          the bottom line, tables and ratios (md, csv, json, parquet)
    spawnbench compare results/a results/b   what changed, cell by cell, over processes
    spawnbench merge -o OUT DIR...           shards or machines of one spec into one set

A spec (specs/*.cue, checked against 'spawnbench schema') says which
environments, modes, thread counts and sample policy to measure; docs/ says
the rest.

Exit status: 0 success; 1 a failure (a build, a write, a journal append on
a full disk; what was measured is kept); 2 bad input: a malformed spec, an
unknown environment or flag, a result directory another spawnbench holds or
whose files are not one set (nothing is written); 130 interrupted by
Ctrl-C, SIGTERM or a closed output pipe (every finished process is kept;
continue with run --resume). spawnbench wasmtime and spawnbench wazero exit
with their module's own code instead.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	suggestions(root)
	for _, sub := range commands {
		root.AddCommand(sub(c))
	}
	return root
}

func init() {
	commands = append(commands, func(c *cli) *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print spawnbench's version (the VCS revision it was built from)",
			Long: `Version prints the VCS revision the binary was built from, with "+dirty"
when the checkout had uncommitted changes (build with go build
-buildvcs=true, as .ci/setup does; otherwise it says unknown). Every
invocation records it in the provenance; spawnbench --version prints the
same.`,
			Example: "  spawnbench version",
			Args:    exactArgs(0, "version takes no arguments"),
			Run:     func(*cobra.Command, []string) { fmt.Fprintln(c.stdout, "spawnbench", version) },
		}
	})
}

func main() {
	// First: a copy of spawnbench started as a helper (a guardian, a
	// keeper, a namespace's holder) plays its role and exits.
	reexec.Dispatch()
	// Then: an interrupt from here on (or caught since the interrupt
	// package's init) exits 130, never by the signal.
	ctx := interrupt.Start()
	if err := execute(ctx, os.Stdout, os.Stderr, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "spawnbench:", err)
		os.Exit(exitCode(err))
	}
}

// usageError marks bad command-line use; like inputerr.Error it exits 2.
type usageError struct{ error }

// exitCode is 2 for bad input (nothing was written), for a result
// directory another spawnbench holds and for one whose files are not one
// whole set, 130 for an interrupt (what was measured is kept): Ctrl-C,
// SIGTERM, or, for run and calibrate, the reader of standard output or
// error gone (where a plain program dies of SIGPIPE with 141), and 1 for
// anything else.
func exitCode(err error) int {
	var in *inputerr.Error
	var use usageError
	var locked *results.LockedError
	var format *results.FormatError
	switch {
	case errors.As(err, &in) || errors.As(err, &use) || errors.As(err, &locked) || errors.As(err, &format):
		return 2
	case errors.Is(err, context.Canceled):
		return interrupt.ExitCode
	}
	return 1
}
