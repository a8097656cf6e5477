package main

import (
	"fmt"
	"os"
	"text/tabwriter"

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
				e, err := k.New(es.Name, es.Settings)
				if err != nil {
					fmt.Fprintf(tw, "%s\terror\t%v\t-\n", kind, err)
					continue
				}
				tc := e.Toolchain(cmd.Context())
				if tc.Present {
					fmt.Fprintf(tw, "%s\tready\t%s\t%s\n", kind, tc.Version, tc.Install)
				} else {
					fmt.Fprintf(tw, "%s\tmissing\t%s\t%s\n", kind, tc.Problem, tc.Install)
				}
			}
			return tw.Flush()
		},
	})
}
