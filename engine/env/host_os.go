package env

import (
	"context"
	"path/filepath"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// osHost: the operating system runs an executable directly, one fresh
// process per repetition.
type osHost struct{}

func init() {
	RegisterHost("os", "the operating system, running an executable directly", FormExecutable,
		// CLOCK_MONOTONIC counts nanoseconds.
		HostFacts{Family: hostfacts.Native, ClockStepNS: 1},
		func(struct{}) Host { return osHost{} })
}

func (osHost) Toolchain(context.Context) Toolchain { return Toolchain{Present: true} }

func (osHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	argv := append([]string{filepath.Join(r.BuildDir, e.File)}, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
