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
		Use:   "envs",
		Short: "List environment kinds, whether their toolchains are present, and how to install them",
		Args:  exactArgs(0, "envs takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := spec.LoadSchema()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tSTATUS\tVERSION / PROBLEM\tINSTALL")
			for _, kind := range sc.KindNames() {
				k, ok := env.Lookup(kind)
				if !ok {
					fmt.Fprintf(tw, "%s\tnot yet available\tthis build of spawnbench has no %s environment\t-\n", kind, kind)
					continue
				}
				es, err := sc.DefaultEnvironment(kind)
				if err != nil {
					fmt.Fprintf(tw, "%s\tuser-defined\t%s: %s\t-\n", kind, k.Doc, "declare it in a spec")
					continue
				}
				rows := []struct {
					label    string
					settings cue.Value
				}{{kind, es.Settings}}
				for _, v := range envVariants[kind] {
					settings, err := withSettings(es.Settings, v.settings)
					if err != nil {
						return err
					}
					rows = append(rows, struct {
						label    string
						settings cue.Value
					}{kind + " (" + v.name + ")", settings})
				}
				for _, row := range rows {
					e, err := k.New(es.Name, row.settings)
					if err != nil {
						fmt.Fprintf(tw, "%s\terror\t%v\t-\n", row.label, err)
						continue
					}
					tc := e.Toolchain(cmd.Context())
					if tc.Present {
						fmt.Fprintf(tw, "%s\tready\t%s\t%s\n", row.label, tc.Version, tc.Install)
					} else {
						fmt.Fprintf(tw, "%s\tmissing\t%s\t%s\n", row.label, tc.Problem, tc.Install)
					}
				}
			}
			return tw.Flush()
		},
	})
}

// envVariants are environments of the shipped specs that run something
// else than their kind's defaults do (another runtime, not other knobs),
// so envs checks them too: the wasmtime-cli kind's default is Wasmtime 46,
// and the specs also measure the 36 LTS line.
var envVariants = map[string][]struct {
	name     string
	settings map[string]any
}{
	"wasmtime-cli": {{"wasmtime-36", map[string]any{"wasmtime": "wasmtime-36"}}},
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
