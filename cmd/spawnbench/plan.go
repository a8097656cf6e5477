package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"spawnbench/engine/spec"
)

func init() {
	var only []string
	cmd := &cobra.Command{
		Use:   "plan SPEC.cue",
		Short: "Print the expanded plan (environment, mode, n, processes) without running anything",
		Args:  exactArgs(1, "give one spec file, e.g. spawnbench plan specs/sequential.cue"),
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, err := spec.LoadPlan(args[0], only)
			if err != nil {
				return err
			}
			fmt.Print(plan)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&only, "env", nil, "plan only this environment (repeatable)")
	rootCmd.AddCommand(cmd)

	rootCmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "Print the CUE schema that specs are checked against",
		Args:  exactArgs(0, "schema takes no arguments"),
		Run:   func(*cobra.Command, []string) { fmt.Print(spec.SchemaText()) },
	})
}
