package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"cuelang.org/go/cue"
	"github.com/spf13/cobra"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

func init() { commands = append(commands, newEnvsCmd) }

func newEnvsCmd(c *cli) *cobra.Command {
	var wide bool
	cmd := &cobra.Command{
		Use:   "envs",
		Short: "List environments (payload on host, by kind), whether their toolchains are present, and how to install them",
		Long: `Envs lists every kind (one row per Wasmtime release) with its payload and
host and whether its tools are here: ready, missing, unfit, or
user-defined (command, declared in a spec). Under each row come the tools'
versions or the problem and, for a kind that is not ready, the command
that installs what is missing (docs/installing.md); --wide puts them on
the row, with the install command of ready kinds too.`,
		Example: `  spawnbench envs               # what can run here, and how to install the rest
  spawnbench envs --wide        # one line per kind`,
		Args: exactArgs(0, "envs takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := envRows(cmd.Context())
			if err != nil {
				return err
			}
			if wide {
				tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "KIND\tPAYLOAD\tHOST\tSTATUS\tVERSION / PROBLEM\tINSTALL")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.label, r.payload, r.host, r.status, r.detail, r.install)
				}
				return tw.Flush()
			}
			var b strings.Builder
			t := table{}
			t.add("KIND", "PAYLOAD", "HOST", "STATUS")
			for _, r := range rows {
				t.add(r.label, r.payload, r.host, r.status)
			}
			lines := strings.SplitAfter(t.String(), "\n")
			b.WriteString(lines[0])
			for i, r := range rows {
				b.WriteString(lines[i+1])
				b.WriteString(wrap(r.detail, "    ", "      "))
				if r.status != "ready" && r.install != "-" {
					b.WriteString(wrap("install: "+r.install, "    ", "      "))
				}
			}
			_, err = io.WriteString(c.stdout, b.String())
			return err
		},
	}
	wideFlag(cmd, &wide, "each kind on one line with its versions and install command")
	return cmd
}

// envRow is one kind (or Wasmtime release) as envs lists it.
type envRow struct {
	label, payload, host, status string
	// detail is the versions of the tools, or the problem; install the
	// command that installs them ("-" for none).
	detail, install string
}

// envRows checks every kind's toolchain, each Wasmtime release apart. The
// checks run at once: each mostly waits for a tool to print its version.
func envRows(ctx context.Context) ([]envRow, error) {
	sc, err := spec.LoadSchema()
	if err != nil {
		return nil, err
	}
	var out []envRow
	checks := map[int]*env.Environment{} // a row of out whose tools are to check
	for _, kind := range sc.KindNames() {
		payload, host, _ := sc.PairOfKind(kind)
		if !env.Runs(payload, host) {
			out = append(out, envRow{kind, payload, host, "not yet available", fmt.Sprintf("this build of spawnbench cannot run %s on %s", payload, host), "-"})
			continue
		}
		es, err := sc.DefaultEnvironment(kind)
		if err != nil {
			out = append(out, envRow{kind, payload, host, "user-defined", env.HostDoc(host) + ": declare it in a spec", "-"})
			continue
		}
		type row struct {
			label    string
			settings cue.Value
		}
		rows := []row{{kind, es.Settings}}
		variants := hostVariants(host)
		if len(variants) > 0 {
			rows = nil // each variant is a row of its own, the default's too
		}
		if es.Settings.LookupPath(cue.ParsePath("root")).Exists() {
			variants = append(variants, rootVariants()...)
		}
		for _, v := range variants {
			settings, err := withSettings(es.Settings, v.settings)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row{kind + " (" + v.name + ")", settings})
		}
		for _, row := range rows {
			e, err := env.New(es.Name, kind, payload, host, row.settings)
			if err != nil {
				out = append(out, envRow{row.label, payload, host, "error", err.Error(), "-"})
				continue
			}
			checks[len(out)] = e
			out = append(out, envRow{label: row.label, payload: payload, host: host})
		}
	}
	var wg sync.WaitGroup
	for i, e := range checks {
		wg.Add(1)
		go func(r *envRow) {
			defer wg.Done()
			switch tc := e.Toolchain(ctx); {
			case tc.Present:
				r.status, r.detail, r.install = "ready", tc.Version, tc.Install
			case tc.Unfit:
				r.status, r.detail, r.install = "unfit", tc.Problem, "-"
			default:
				r.status, r.detail, r.install = "missing", tc.Problem, tc.Install
			}
		}(&out[i])
	}
	wg.Wait()
	return out, nil
}

type variant struct {
	name     string
	settings map[string]any
}

// hostVariants are hosts the shipped specs run in more than one version,
// so envs checks and lists each, the default first: every Wasmtime CLI
// release (engine/env/wasmtime-cli.versions).
func hostVariants(host string) []variant {
	if host != "wasmtime-cli" {
		return nil
	}
	var out []variant
	for _, v := range env.WasmtimeCLIVersions() {
		cli := env.WasmtimeCLICommand(v)
		out = append(out, variant{cli, map[string]any{"wasmtime": cli}})
	}
	return out
}

// rootVariants are a kind's rows from the toolchain roots other than the
// system's (engine/env/root.go), for kinds whose payload or host takes
// one: "emscripten (sid)".
func rootVariants() []variant {
	return []variant{{env.RootSid, map[string]any{"root": env.RootSid}}}
}

// withSettings returns the kind's default settings with some set, checked
// against the kind's definition as a spec's would be.
func withSettings(defaults cue.Value, set map[string]any) (cue.Value, error) {
	v := defaults
	for k, x := range set {
		v = v.FillPath(cue.MakePath(cue.Str(k)), x)
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return cue.Value{}, fmt.Errorf("settings %v: %w", set, err)
	}
	return v, nil
}
