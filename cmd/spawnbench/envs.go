package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"cuelang.org/go/cue"
	"github.com/spf13/cobra"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:     "envs",
		Short:   "List environments (payload on host, by kind), whether their toolchains are present, and how to install them",
		Example: `  spawnbench envs               # what can run here, and how to install the rest`,
		Args:    exactArgs(0, "envs takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := spec.LoadSchema()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tPAYLOAD\tHOST\tSTATUS\tVERSION / PROBLEM\tINSTALL")
			for _, kind := range sc.KindNames() {
				payload, host, _ := sc.PairOfKind(kind)
				if !env.Runs(payload, host) {
					fmt.Fprintf(tw, "%s\t%s\t%s\tnot yet available\tthis build of spawnbench cannot run %s on %s\t-\n", kind, payload, host, payload, host)
					continue
				}
				es, err := sc.DefaultEnvironment(kind)
				if err != nil {
					fmt.Fprintf(tw, "%s\t%s\t%s\tuser-defined\t%s: %s\t-\n", kind, payload, host, env.HostDoc(host), "declare it in a spec")
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
				for _, v := range variants {
					settings, err := withSettings(es.Settings, v.settings)
					if err != nil {
						return err
					}
					rows = append(rows, row{kind + " (" + v.name + ")", settings})
				}
				for _, row := range rows {
					e, err := env.New(es.Name, kind, payload, host, row.settings)
					if err != nil {
						fmt.Fprintf(tw, "%s\t%s\t%s\terror\t%v\t-\n", row.label, payload, host, err)
						continue
					}
					tc := e.Toolchain(cmd.Context())
					switch {
					case tc.Present:
						fmt.Fprintf(tw, "%s\t%s\t%s\tready\t%s\t%s\n", row.label, payload, host, tc.Version, tc.Install)
					case tc.Unfit:
						fmt.Fprintf(tw, "%s\t%s\t%s\tunfit\t%s\t-\n", row.label, payload, host, tc.Problem)
					default:
						fmt.Fprintf(tw, "%s\t%s\t%s\tmissing\t%s\t%s\n", row.label, payload, host, tc.Problem, tc.Install)
					}
				}
			}
			return tw.Flush()
		},
	})
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
