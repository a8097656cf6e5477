package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/proc"
)

// cli is one invocation of spawnbench: where its commands write and the
// command line as the process got it (the program as it was called
// first), which provenance records and a retry line repeats.
type cli struct {
	stdout, stderr io.Writer
	args           []string
	// ownWork, when set, is given to every run's runner (run.Options'
	// OwnWork): the tests' in-process runs share one measure. Unset, it
	// comes from ownWorkEnv, or else each run measures its own.
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

// ownWorkEnv names spawnbench's own work per process as an earlier
// measure gave it (proc.OwnWork: PER_PROCESS_NS,OTHERS_CPUS,PROCESSES),
// which run and calibrate then record instead of measuring it again: for
// a caller that starts many short runs on one machine (the tests), where
// the half second of each measure would be most of the run.
const ownWorkEnv = "SPAWNBENCH_OWN_WORK"

// ownWorkFromEnv is the measure ownWorkEnv gives, nil where it is unset.
func ownWorkFromEnv() (*proc.OwnWork, error) {
	v := os.Getenv(ownWorkEnv)
	if v == "" {
		return nil, nil
	}
	var w proc.OwnWork
	if n, err := fmt.Sscanf(v, "%d,%g,%d", &w.PerProcessNS, &w.OthersCPUs, &w.Processes); err != nil || n != 3 ||
		w.PerProcessNS < 0 || w.OthersCPUs < 0 || w.Processes <= 0 || ownWorkValue(w) != v {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s=%q: want PER_PROCESS_NS,OTHERS_CPUS,PROCESSES as a measure of spawnbench's own work gives them, e.g. 188000,0.02,210", ownWorkEnv, v)}
	}
	return &w, nil
}

// ownWorkValue is w as ownWorkEnv takes it.
func ownWorkValue(w proc.OwnWork) string {
	return fmt.Sprintf("%d,%g,%d", w.PerProcessNS, w.OthersCPUs, w.Processes)
}

// execute runs c's command line.
func (c *cli) execute(ctx context.Context) error {
	root := newRoot(c)
	root.SetArgs(c.args[1:])
	return root.ExecuteContext(ctx)
}
