package env

import (
	"context"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// command host: runs a command payload (payload_command.go) with the
// spec's run template, in the build directory.
type commandHost struct{ cfg commandRun }

type commandRun struct {
	Run     []string `json:"run"`
	Version []string `json:"version"`
	Install string   `json:"install"`
	Env     []string `json:"env"`
}

func init() {
	RegisterHost("command", "any runtime, given as a run argv template in CUE", FormExecutable+"-template",
		HostFacts{Family: hostfacts.Other},
		func(cfg commandRun) Host { return &commandHost{cfg: cfg} })
}

func (h *commandHost) Toolchain(ctx context.Context) Toolchain {
	if problem := missingProgram(h.cfg.Run, h.cfg.Version); problem != "" {
		return Toolchain{Install: h.cfg.Install, Problem: problem}
	}
	version := "unknown (no version command declared)"
	if len(h.cfg.Version) > 0 {
		out, err := proc.Output(ctx, "", h.cfg.Version...)
		if err != nil {
			return Toolchain{Install: h.cfg.Install, Problem: err.Error()}
		}
		version = firstLine(out)
	}
	return Toolchain{Present: true, Version: version, Install: h.cfg.Install}
}

func (h *commandHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	argv := expand(h.cfg.Run, map[string]string{"out": r.BuildDir, "bench": e.File, "arg": strings.Join(e.Args, " ")})
	return proc.Run(ctx, proc.Command{Argv: argv, Env: h.cfg.Env, CPUs: r.CPUs, Dir: r.BuildDir, Stdout: r.Stdout})
}
