package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"spawnbench/engine/spec"
)

func init() { commands = append(commands, newSchemaCmd) }

func newSchemaCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the CUE schema that specs are checked against, as one file",
		Example: `  spawnbench schema > schema.cue
  cat schema.cue my-spec.cue > checked.cue && cue vet -c checked.cue`,
		Long: `Schema prints the spec schema as one self-contained CUE file whose top
level is a spec. Appended to it, a spec without imports passes
'cue vet -c' exactly when spawnbench plan accepts it (pinning to CPUs
this machine lacks aside), as the examples do.`,
		Args: exactArgs(0, "schema takes no arguments"),
		RunE: func(*cobra.Command, []string) error {
			text, err := spec.SchemaText()
			if err != nil {
				return err
			}
			fmt.Fprint(c.stdout, text)
			return nil
		},
	}
}
