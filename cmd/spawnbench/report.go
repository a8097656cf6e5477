package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"spawnbench/cmd/spawnbench/internal/interrupt"
	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

func init() { commands = append(commands, newReportCmd) }

func newReportCmd(c *cli) *cobra.Command {
	var format, out, baseline, plots string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Print the bottom line, typical times and ratios of one or more result directories",
		Example: `  spawnbench report results/reference                       # Markdown, bottom line first
  spawnbench report results/reference --format json | jq .bottom_line
  spawnbench report results/reference -o cells.parquet      # one row per cell, for notebooks
  spawnbench report results/mine --plots results/mine/plots -o results/mine/summary.md`,
		Long: `Report reads result directories written by spawnbench run and prints,
first, the bottom line: one row per host (native, the embedded
wasi-threads host, a Wasmtime CLI, WAMR, the JavaScript wasi-threads host,
Emscripten, raw workers, in each runtime and browser measured) with its
first spawn (n = 1) and its steady state (the last 10 spawns of n = 100)
as ratios to the baseline with 95% intervals and the processes behind
them, and the earlier study's claims and table beside what the set
measured. Then every cell's typical spawn time with its 95% interval over
processes (the process is the unit of replication) and its precision;
the ratios to the baseline; each environment set against another
(against); regimes, process clusters, placement, parallel mode's first
thread and makespan, Wasmtime releases; every cell's load (others' CPU
and steal, as shares of wall time); failures and skips; and, in an
appendix, the pooled means (the earlier study's statistic), the clock
checks and the provenance. Statistics use spawns of ok processes only.
Verdicts, each by its rule (in full in the report's legends and docs/statistics.md):

` + verdictRules() + `
Several directories are merged when they measured different cells, e.g. one
run per environment. A set holding a cell twice is refused (exit 2).
--plots DIR also draws SVG and PNG plots there. --format parquet writes
cells.parquet's table (one row per measured cell and view), --format csv
the same columns as text; --format benchfmt writes
Go benchmark lines for benchstat (benchstat -col /environment FILE).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("report: give at least one result directory, e.g. spawnbench report results/sequential")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// An output over an input is refused first, whatever the format.
			if err := checkOutput(out, args); err != nil {
				return err
			}
			format, err := formatFor("report", format, out, cmd.Flags().Changed("format"), reportFormats)
			if err != nil {
				return err
			}
			if err := render.CheckFormat(format); err != nil {
				return err
			}
			if err := checkPlotsDir(plots); err != nil {
				return err
			}
			baselineGiven := cmd.Flags().Changed("baseline")
			return c.interruptible(cmd.Context(), false, func() error { return c.writeReport(args, out, plots, format, baseline, baselineGiven) })
		},
	}
	cmd.Flags().StringVar(&format, "format", render.FormatMarkdown, textfmt.List(reportFormats, "or")+" (default: from -o's extension, else md)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&baseline, "baseline", report.DefaultBaseline, "environment the ratio table divides by")
	cmd.Flags().StringVar(&plots, "plots", "", "also write SVG and PNG plots into this directory")
	return cmd
}

// reportFormats are the formats report writes.
var reportFormats = []string{render.FormatMarkdown, render.FormatCSV, render.FormatJSON, render.FormatBenchfmt, render.FormatParquet}

// writeReport reads the result directories and writes their report to
// out (standard output when empty), plots into plots when given.
func (c *cli) writeReport(args []string, out, plots, format, baseline string, baselineGiven bool) error {
	inputs, err := c.readResultDirs(args)
	if err != nil {
		return err
	}
	r, err := report.Build(inputs, report.Options{Baseline: baseline})
	if err != nil {
		return err
	}
	if baselineGiven && !slices.Contains(r.Environments, baseline) {
		return &inputerr.Error{Msg: fmt.Sprintf("baseline %q is not an environment of these results (they have %s)",
			baseline, strings.Join(r.Environments, ", "))}
	}
	var links []render.Plot
	if plots != "" {
		if links, err = render.WritePlots(r, plots); err != nil {
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
	if format == render.FormatParquet && len(inputs) == 1 {
		// One set's table is the set's own cells.parquet, stamped with it.
		return c.writeOutput(out, func(w io.Writer) error { return render.WriteSetCells(r, inputs[0].Set, w) })
	}
	return c.writeOutput(out, func(w io.Writer) error { return render.Write(r, w, format, links) })
}

// checkPlotsDir is an input error when --plots cannot be a directory.
func checkPlotsDir(plots string) error {
	if plots == "" {
		return nil
	}
	lst, err := os.Lstat(plots)
	if err != nil {
		return nil // made by WritePlots
	}
	st, serr := os.Stat(plots)
	switch {
	case lst.Mode()&os.ModeSymlink != 0 && serr != nil:
		target, _ := os.Readlink(plots)
		return &inputerr.Error{Msg: fmt.Sprintf("--plots %s is a symbolic link to %s, which does not exist or loops; remove the link or give another directory", plots, target)}
	case serr == nil && !st.IsDir():
		return &inputerr.Error{Msg: fmt.Sprintf("--plots %s is a file; give a directory for the plots", plots)}
	}
	// Plots replace plots, never a user's files: the directory may hold
	// only what an earlier --plots wrote (per-machine subdirectories too).
	var foreign func(dir string, depth int) string
	foreign = func(dir string, depth int) string {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			switch n := e.Name(); {
			case e.IsDir() && depth == 0:
				if f := foreign(filepath.Join(dir, n), 1); f != "" {
					return f
				}
			case !e.IsDir() && (atomicfile.IsTemp(n) || plotFile.MatchString(n)):
			default:
				return filepath.Join(dir, n)
			}
		}
		return ""
	}
	if f := foreign(plots, 0); f != "" {
		return &inputerr.Error{Msg: fmt.Sprintf("--plots %s holds %s, which is not a spawnbench plot; give a new directory (or one that holds only plots)", plots, f)}
	}
	return nil
}

// plotFile matches the names WritePlots gives its files.
var plotFile = regexp.MustCompile(`^((dist|order)-.+|wasmtime-releases)\.(svg|png)$`)

// extFormats are the formats an output file's extension picks, in the
// order a message lists them.
var extFormats = []struct{ ext, format string }{
	{".md", render.FormatMarkdown}, {".markdown", render.FormatMarkdown}, {".txt", render.FormatMarkdown},
	{".csv", render.FormatCSV}, {".json", render.FormatJSON}, {".parquet", render.FormatParquet},
}

// extFormat is the format the extension of the file name out picks, or "".
func extFormat(out string) string {
	ext := strings.ToLower(filepath.Ext(out))
	for _, e := range extFormats {
		if e.ext == ext {
			return e.format
		}
	}
	return ""
}

// formatFor picks the output format: the flag when given, else the
// extension of the output file, else Markdown. An extension that picks
// none of the command's formats (known) is bad input: a report written
// as cells.xlsx would be Markdown under a spreadsheet's name.
func formatFor(command, flag, out string, changed bool, known []string) (string, error) {
	if changed || filepath.Ext(out) == "" {
		return flag, nil
	}
	if f := extFormat(out); slices.Contains(known, f) {
		return f, nil
	}
	var exts []string
	for _, e := range extFormats {
		if slices.Contains(known, e.format) {
			exts = append(exts, e.ext)
		}
	}
	return "", usageError{fmt.Errorf("%s -o %s: %s writes no %s file; end the name in %s, or give the format with --format (%s)",
		command, out, command, filepath.Ext(out), textfmt.List(exts, "or"), textfmt.List(known, "or"))}
}

// readResultDirs reads each directory with results.ReadDir, in order.
func (c *cli) readResultDirs(dirs []string) ([]report.Input, error) {
	inputs := make([]report.Input, 0, len(dirs))
	for _, dir := range dirs {
		set, err := results.ReadDir(dir, c.stderr)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, report.Input{Dir: dir, Set: set})
	}
	return inputs, nil
}

// writeOutput runs write on standard output, or on the file out, which
// is replaced whole (atomicfile) so an interrupted report never leaves half
// a file. An out that is a symbolic link writes its target.
func (c *cli) writeOutput(out string, write func(io.Writer) error) error {
	if out == "" {
		return write(c.stdout)
	}
	if target, err := filepath.EvalSymlinks(out); err == nil {
		out = target
	}
	if err := atomicfile.Write(out, write); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// interruptible runs work; on Ctrl-C or SIGTERM it ends the files being
// written (atomicfile.Abort: no temporary file stays, no file is
// replaced after it) and returns the interrupt (exit 130) at once. With
// wait it first lets work stop (a merge removes its hidden directory) and
// returns work's success if work had finished everything anyway.
func (c *cli) interruptible(ctx context.Context, wait bool, work func() error) error {
	defer interrupt.Hold()()
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		atomicfile.Abort()
		if wait {
			if err := <-done; err == nil {
				return nil // the interrupt came after the last write
			}
		}
		fmt.Fprintln(c.stderr, "spawnbench: interrupted; no file was left half-written")
		return ctx.Err()
	}
}

// checkOutput is an input error when -o cannot be the report file: a
// directory, a link that leads nowhere, a name a result set keeps for
// its own files (report D -o D/journal.jsonl would break D), or a file of
// a result directory being read (report D -o D/samples.parquet must not
// turn measurements into Markdown).
func checkOutput(out string, dirs []string) error {
	if out == "" {
		return nil
	}
	if lst, err := os.Lstat(out); err == nil {
		st, serr := os.Stat(out)
		switch {
		case lst.Mode()&os.ModeSymlink != 0 && serr != nil:
			target, _ := os.Readlink(out)
			why := "points to " + target + ", which does not exist"
			if !errors.Is(serr, os.ErrNotExist) {
				why = "cannot be followed (a loop of links?)"
			}
			return &inputerr.Error{Msg: fmt.Sprintf("-o %s is a symbolic link that %s; remove the link or point it at a file", out, why)}
		case serr == nil && st.IsDir():
			return &inputerr.Error{Msg: fmt.Sprintf("-o %s is a directory; -o names the report file, e.g. -o %s", out, results.FreeName(out, "summary", ".md"))}
		}
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // results.ReadDir reports a missing directory
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			input := filepath.Join(dir, e.Name())
			if samePath(out, input) {
				return &inputerr.Error{Msg: fmt.Sprintf("-o %s would overwrite %s, a file of the result directory being read; write the report to a new file (e.g. -o %s)",
					out, input, results.FreeName(dir, "summary", reportExt(out)))}
			}
		}
	}
	if results.Reserved(filepath.Base(out)) {
		return &inputerr.Error{Msg: fmt.Sprintf("-o %s takes the name %s, which a result set keeps for its own files; name the report otherwise, e.g. -o %s",
			out, filepath.Base(out), results.FreeName(filepath.Dir(out), "summary", reportExt(out)))}
	}
	return nil
}

// reportExt is out's extension when it picks a report format, else
// ".md".
func reportExt(out string) string {
	if extFormat(out) != "" {
		return strings.ToLower(filepath.Ext(out))
	}
	return ".md"
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

// verdictRules lists the verdicts' rules for report's help, in the words
// of engine/stats, which applies them.
func verdictRules() string {
	var b strings.Builder
	for _, r := range stats.Rules {
		b.WriteString(wrap(r.Summary, "  - ", "    "))
	}
	return b.String()
}
