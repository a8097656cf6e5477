package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"spawnbench/engine/proc"
)

// command: any runtime a user has, declared in CUE as argv templates (no
// shell). It lets a spec measure a runtime spawnbench has no Go for, as long
// as the runtime can run the benchmark and print c/sb.h's line protocol.
type command struct {
	name string
	cfg  commandSettings
}

type commandSettings struct {
	Build   [][]string `json:"build"`
	Run     []string   `json:"run"`
	Version []string   `json:"version"`
	Install string     `json:"install"`
	Env     []string   `json:"env"`
}

func init() {
	Register("command", "any runtime, given as build and run argv templates in CUE",
		func(name string, cfg commandSettings) Environment { return &command{name: name, cfg: cfg} })
}

func (e *command) Name() string { return e.name }
func (e *command) Kind() string { return "command" }

// Toolchain checks that every program the templates start is on PATH
// (templated paths such as {out}/... are built, not installed).
func (e *command) Toolchain(ctx context.Context) Toolchain {
	progs := [][]string{e.cfg.Run, e.cfg.Version}
	progs = append(progs, e.cfg.Build...)
	for _, argv := range progs {
		if len(argv) == 0 || strings.Contains(argv[0], "{") {
			continue
		}
		if why := proc.Missing(argv[0]); why != "" {
			return Toolchain{Install: e.cfg.Install, Problem: why}
		}
	}
	version := "unknown (no version command declared)"
	if len(e.cfg.Version) > 0 {
		out, err := proc.Output(ctx, "", e.cfg.Version...)
		if err != nil {
			return Toolchain{Install: e.cfg.Install, Problem: err.Error()}
		}
		version = firstLine(out)
	}
	return Toolchain{Present: true, Version: version, Install: e.cfg.Install}
}

func (e *command) BuildKey(ctx context.Context) string {
	b, _ := json.Marshal(e.cfg)
	return "command|" + string(b) + "|" + e.Toolchain(ctx).Version
}

func (e *command) Build(ctx context.Context, srcDir, outDir string) error {
	for _, b := range Benchmarks {
		for _, tmpl := range e.cfg.Build {
			argv := expand(tmpl, map[string]string{"src": srcDir, "out": outDir, "bench": string(b)})
			if _, err := proc.OutputOf(ctx, proc.Command{Argv: argv, Dir: srcDir, Env: e.cfg.Env}); err != nil {
				return fmt.Errorf("build %s: %s: %w", b, strings.Join(argv, " "), err)
			}
		}
	}
	return nil
}

func (e *command) Run(ctx context.Context, r Repetition) (Outcome, error) {
	argv := expand(e.cfg.Run, map[string]string{
		"out": r.BuildDir, "bench": string(r.Benchmark), "arg": fmt.Sprint(r.Arg),
	})
	return proc.Run(ctx, proc.Command{Argv: argv, Env: e.cfg.Env, CPUs: r.CPUs, Dir: r.BuildDir, Stdout: r.Stdout})
}

// expand substitutes {key} placeholders in every argument.
func expand(tmpl []string, vars map[string]string) []string {
	out := make([]string, len(tmpl))
	for i, a := range tmpl {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}
