package main

import (
	"io"

	"github.com/spf13/cobra"

	"spawnbench/engine/report"
)

func init() {
	var format, out string
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two result directories cell by cell, like benchstat",
		Long: `Compare prints, for every (environment, mode, n, view) cell measured in
both result directories, the old and new typical spawn times with their 95%
intervals over processes, the change with its interval, and whether the
Yuen–Welch test over the two cells' processes finds it significant
(α = 0.05); how many new figures lie inside the old intervals; and every
ratio to the baseline, old and new. Differences in spec, spawnbench and
toolchain versions and machine are listed above the table, with each set's
invocations and whether it is incomplete. Cells flagged busy or unstable in
either set are marked, and a warning says when the two sets were measured
on differently busy machines. Directories that share no cell are an error.`,
		Args: exactArgs(2, "give two result directories, e.g. spawnbench compare results/before results/after"),
		RunE: func(cmd *cobra.Command, args []string) error {
			// An output over an input is refused first, whatever the format.
			if err := checkOutput(out, args); err != nil {
				return err
			}
			format = formatFor(format, out, cmd.Flags().Changed("format"))
			if err := report.CheckCompareFormat(format); err != nil {
				return err
			}
			return interruptible(cmd.Context(), false, func() error {
				oldIn, err := readResultDir(args[0])
				if err != nil {
					return err
				}
				newIn, err := readResultDir(args[1])
				if err != nil {
					return err
				}
				c, err := report.Compare(oldIn, newIn)
				if err != nil {
					return err
				}
				return writeOutput(out, func(w io.Writer) error { return c.Write(w, format) })
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", report.FormatMarkdown, "md, csv or json (default: from -o's extension, else md)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	rootCmd.AddCommand(cmd)
}
