package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

func init() {
	var format, out, baseline, plots string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Print the classic, typical-time and ratio tables of one or more result directories",
		Long: `Report reads result directories written by spawnbench run and prints:
the invocations that made each set (and, first, whether a set is
incomplete: an invocation interrupted or planned processes missing);
clock calibration verdicts (loudly when a clock failed); the classic table
of mean spawn times (rows environment × mode grouped by host family,
columns n and the last-K views); each cell's typical spawn time with its
95% interval computed over processes (the process is the unit of
replication), its precision and the processes behind it; regimes and
placement where cells have them; parallel mode's first thread, makespan
and start rate; and each environment's figure divided by the baseline's.
Statistics use spawns of ok processes only. Every cell gets a verdict:
[busy] when other work or steal took more than 10% of its processes' wall
time, [unstable] when its interval is wider than the spec's target
precision or its processes differ, [not judged] below 5 processes.

Several directories are merged when they measured different cells, e.g. one
run per environment. A set holding a cell twice is refused (exit 2).
--plots DIR also draws SVG and PNG plots there. --format benchfmt writes
Go benchmark lines for benchstat (benchstat -col /environment FILE).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("report: give at least one result directory, e.g. spawnbench report results/sequential")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format = formatFor(format, out, cmd.Flags().Changed("format"))
			if err := report.CheckFormat(format); err != nil {
				return err
			}
			if err := refuseOverwritingInputs(out, args); err != nil {
				return err
			}
			var inputs []report.Input
			for _, dir := range args {
				in, err := readResultDir(dir)
				if err != nil {
					return err
				}
				inputs = append(inputs, in)
			}
			r, err := report.Build(inputs, report.Options{Baseline: baseline})
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("baseline") && !slices.Contains(r.Environments, baseline) {
				return &inputerr.Error{Msg: fmt.Sprintf("baseline %q is not an environment of these results (they have %s)",
					baseline, strings.Join(r.Environments, ", "))}
			}
			var links []report.Plot
			if plots != "" {
				if links, err = r.WritePlots(plots); err != nil {
					return err
				}
				// Link the plots from where the report will be read.
				base := plots
				if out != "" {
					if rel, err := filepath.Rel(filepath.Dir(out), plots); err == nil {
						base = rel
					}
				}
				for i := range links {
					links[i].Path = filepath.ToSlash(filepath.Join(base, links[i].Path))
				}
			}
			return writeOutput(out, func(w io.Writer) error { return r.Write(w, format, links) })
		},
	}
	cmd.Flags().StringVar(&format, "format", report.FormatMarkdown, "md, csv, json or benchfmt (default: from -o's extension, else md)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&baseline, "baseline", report.DefaultBaseline, "environment the ratio table divides by")
	cmd.Flags().StringVar(&plots, "plots", "", "also write SVG and PNG plots into this directory")
	rootCmd.AddCommand(cmd)
}

// formatFor picks the output format: the flag when given, else the
// extension of the output file, else Markdown.
func formatFor(flag, out string, changed bool) string {
	if changed || out == "" {
		return flag
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".csv":
		return report.FormatCSV
	case ".json":
		return report.FormatJSON
	}
	return flag
}

// readResultDir reads one result directory, turning every way it can fail
// to be one into an input error that says what was expected.
func readResultDir(dir string) (report.Input, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return report.Input{}, &inputerr.Error{Msg: fmt.Sprintf("result directory %s does not exist", dir)}
	} else if err != nil {
		return report.Input{}, fmt.Errorf("read results: %w", err)
	}
	if !st.IsDir() {
		return report.Input{}, &inputerr.Error{Msg: fmt.Sprintf("%s is a file; give the result directory that holds %s", dir, results.SamplesFile)}
	}
	for _, name := range []string{results.SamplesFile, results.RunsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return report.Input{}, &inputerr.Error{Msg: fmt.Sprintf("%s holds no spawnbench results: %s is missing (make them with `spawnbench run SPEC.cue -o %s`)",
				dir, name, dir)}
		}
	}
	set, err := results.Read(dir)
	var bad *results.FormatError
	if errors.As(err, &bad) {
		return report.Input{}, &inputerr.Error{Msg: bad.Error()}
	} else if err != nil {
		return report.Input{}, fmt.Errorf("read results in %s: %w", dir, err)
	}
	return report.Input{Dir: dir, Set: set}, nil
}

// writeOutput runs write on standard output, or on the file out, which
// is replaced whole (atomicfile) so an interrupted report never leaves half
// a file.
func writeOutput(out string, write func(io.Writer) error) error {
	if out == "" {
		return write(os.Stdout)
	}
	if err := atomicfile.Write(out, write); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// refuseOverwritingInputs is an input error when the output file would
// replace a file of a result directory being read:
// `report D -o D/samples.parquet` must not turn measurements into
// Markdown.
func refuseOverwritingInputs(out string, dirs []string) error {
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // readResultDir reports a missing directory
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			input := filepath.Join(dir, e.Name())
			if out != "" && samePath(out, input) {
				return &inputerr.Error{Msg: fmt.Sprintf("-o %s would overwrite %s, a file of the result directory being read; write the report elsewhere (e.g. -o %s)",
					out, input, filepath.Join(dir, "report.md"))}
			}
		}
	}
	return nil
}

// samePath is true when a and b name the same existing file, however
// spelled (relative, through a symbolic link, a hard link).
func samePath(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}
