package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"spawnbench/engine/proc"
)

// cli is one invocation of spawnbench: where its commands write and the
// command line as the process got it (the program as it was called
// first), which provenance records and a retry line repeats.
type cli struct {
	stdout, stderr io.Writer
	args           []string
	// ownWork, when set, is given to every run's runner (run.Options'
	// OwnWork): the tests' in-process runs share one measure.
	ownWork *proc.OwnWork
}

// commands are the constructors of the root's subcommands, each added
// from its own file's init.
var commands []func(*cli) *cobra.Command

// execute runs the command line args (as os.Args gives it: the program,
// then its arguments) with its output on stdout and stderr, and returns
// its error unprinted: main prints it and maps it to the exit status
// (exitCode), and the tests call it in-process as main does. ctx is the
// invocation's interrupt: cancelling it is Ctrl-C.
func execute(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return (&cli{stdout: stdout, stderr: stderr, args: args}).execute(ctx)
}

// execute runs c's command line.
func (c *cli) execute(ctx context.Context) error {
	root := newRoot(c)
	root.SetArgs(c.args[1:])
	return root.ExecuteContext(ctx)
}
