package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"spawnbench/engine/report"
	"spawnbench/engine/report/render"
	"spawnbench/engine/textfmt"
)

// compareFormats are the formats compare writes.
var compareFormats = []string{render.FormatMarkdown, render.FormatCSV, render.FormatJSON}

func init() { commands = append(commands, newCompareCmd) }

func newCompareCmd(c *cli) *cobra.Command {
	var format, out string
	var opts report.CompareOptions
	cmd := &cobra.Command{
		Use:   "compare BASE DIR...",
		Short: "Compare result directories cell by cell, each against the first, like benchstat",
		Example: `  # did a change move anything? each later set against the first
  spawnbench compare results/before results/after
  spawnbench compare results/a results/b results/c --alpha 0.01 --confidence 0.99 -o changes.md`,
		Long: `Compare sets each later result directory beside the first (the base) and
prints, for every (environment, mode, n, view) cell both measured, the
base's and the other's typical spawn times with their 95% intervals over
processes, the change with its interval (--confidence, default 95%), and
whether the Yuen–Welch test over the two cells' processes finds it
significant (--alpha, default 0.05; "significant" exactly when the change's
interval at 1 − alpha excludes 0); how many new figures lie inside the base
intervals; whether the machine moved (most cells changed one way); and
every ratio to the baseline, old and new. Differences in spec, spawnbench
and toolchain versions and machine are listed above the table, with each
set's invocations and whether it is incomplete. Cells flagged busy or
unstable in either set are marked, and a warning says when two sets were
measured on differently busy machines (their shares of busy cells differ),
with each set's median load. Directories that share no cell are
an error.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{fmt.Errorf("compare: want two or more result directories, got %d; e.g. spawnbench compare results/before results/after", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// An output over an input is refused first, whatever the format.
			if err := checkOutput(out, args); err != nil {
				return err
			}
			format, err := formatFor("compare", format, out, cmd.Flags().Changed("format"), compareFormats)
			if err != nil {
				return err
			}
			if err := render.CheckCompareFormat(format); err != nil {
				return err
			}
			if err := report.CheckCompareOptions(opts); err != nil {
				return err
			}
			return c.interruptible(cmd.Context(), false, func() error {
				inputs, err := c.readResultDirs(args)
				if err != nil {
					return err
				}
				var cs []*report.Comparison
				for _, in := range inputs[1:] {
					c, err := report.Compare(inputs[0], in, opts)
					if err != nil {
						return err
					}
					cs = append(cs, c)
				}
				return c.writeOutput(out, func(w io.Writer) error { return render.WriteComparisons(w, format, cs) })
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", render.FormatMarkdown, textfmt.List(compareFormats, "or")+" (default: from -o's extension, else md)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	cmd.Flags().Float64Var(&opts.Alpha, "alpha", report.CompareAlpha, "the test's level: a change is significant when p < alpha")
	cmd.Flags().Float64Var(&opts.Confidence, "confidence", report.Confidence, "the confidence of each change's interval")
	return cmd
}
