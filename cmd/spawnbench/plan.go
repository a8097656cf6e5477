package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/spec"
)

func init() {
	var only []string
	var format string
	var seed int64
	var shards int
	cmd := &cobra.Command{
		Use:   "plan SPEC.cue",
		Short: "Print the resolved plan (cells, processes, schedule) without running anything",
		Long: `Plan loads SPEC.cue, checks it against the schema (spawnbench schema) and
prints the plan: every cell with its processes, and the schedule's order
and seed. --format json prints the whole resolved plan: the spec with its
defaults filled, each cell with everything its processes need, and every
step of the schedule in run order.`,
		Args: exactArgs(1, "give one spec file, e.g. spawnbench plan specs/sequential.cue"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("plan: --format %q: give text or json", format)}
			}
			if shards < 0 {
				return usageError{fmt.Errorf("plan --shards %d: give a shard count >= 1", shards)}
			}
			plan, err := spec.LoadPlan(args[0], only)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return inputerr.New("--seed %d: a seed is an integer >= 0", seed)
				}
				plan.Reschedule(plan.Schedule.Order, seed)
			}
			if shards != 0 {
				summary, err := plan.ShardSummary(shards)
				if err != nil {
					return err
				}
				fmt.Print(summary)
				return nil
			}
			if format == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(plan)
			}
			fmt.Print(plan)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&only, "env", nil, "plan only this environment (repeatable)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json (the resolved plan)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "the schedule's seed, instead of the spec's or a random one")
	cmd.Flags().IntVar(&shards, "shards", 0, "show how the plan splits into this many shards of whole cells, balanced by processes")
	rootCmd.AddCommand(cmd)
}
