package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"spawnbench/engine/proc"
)

// command: any runtime a user has, declared in CUE as argv templates (no
// shell): the payload is what the build templates make, and the command
// host (host_command.go) runs it with the run template. It lets a spec
// measure a runtime spawnbench has no Go for, as long as the runtime can
// run the benchmark and print c/sb.h's line protocol.
type commandPayload struct{ cfg commandBuild }

type commandBuild struct {
	Build [][]string `json:"build"`
	Env   []string   `json:"env"`
}

func init() {
	RegisterPayload("command", "whatever the spec's build templates make", []Form{FormExecutable + "-template"}, PayloadFacts{},
		func(cfg commandBuild) Payload { return &commandPayload{cfg: cfg} })
}

// Toolchain checks that every program the build templates start is on
// PATH (templated paths such as {out}/... are built, not installed).
func (p *commandPayload) Toolchain(context.Context) Toolchain {
	if problem := missingProgram(p.cfg.Build...); problem != "" {
		return Toolchain{Problem: problem, Install: "see the runtime's documentation"}
	}
	return Toolchain{Present: true}
}

func missingProgram(argvs ...[]string) string {
	for _, argv := range argvs {
		if len(argv) == 0 || strings.Contains(argv[0], "{") {
			continue
		}
		if why := proc.Missing(argv[0]); why != "" {
			return why
		}
	}
	return ""
}

func (p *commandPayload) BuildKey(context.Context) string {
	b, _ := json.Marshal(p.cfg)
	return "command|" + string(b)
}

func (p *commandPayload) Build(ctx context.Context, srcDir, outDir string) error {
	for _, b := range Benchmarks {
		for _, tmpl := range p.cfg.Build {
			argv := expand(tmpl, map[string]string{"src": srcDir, "out": outDir, "bench": string(b)})
			if _, err := proc.OutputOf(ctx, proc.Command{Argv: argv, Dir: srcDir, Env: p.cfg.Env}); err != nil {
				return fmt.Errorf("build %s: %s: %w", b, strings.Join(argv, " "), err)
			}
		}
	}
	return nil
}

// Entry leaves the templates to the host: the benchmark and its argument.
func (p *commandPayload) Entry(_ Form, b Benchmark, arg int) Entry {
	return Entry{File: string(b), Args: []string{fmt.Sprint(arg)}}
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
