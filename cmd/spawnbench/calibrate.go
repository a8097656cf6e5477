package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"spawnbench"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
)

func init() { commands = append(commands, newCalibrateCmd) }

func newCalibrateCmd(c *cli) *cobra.Command {
	var out string
	var only []string
	cmd := &cobra.Command{
		Use:   "calibrate [SPEC.cue]",
		Short: "Check each environment's clock: sleep calibration and cross-thread coherence",
		Example: `  # check every environment's clock into a set, before measuring into it
  spawnbench calibrate specs/calibrate.cue -o results/mine
  spawnbench run specs/sequential.cue -o results/mine`,
		Long: `Calibrate runs the calibration benchmark (sleeps of 1 µs, 1 ms and 1 s by
default) and sequential coherence runs for every environment of the spec,
variants included (default: the built-in specs/calibrate.cue, which
calibrates the shipped specs' shared environments), prints a verdict per check and
writes calibration.parquet. Run later specs into the same directory (-o) and
their samples of a failed environment are marked clock_trusted = false.
Ctrl-C keeps the checks made so far and exits 130.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("calibrate takes at most one spec file, got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var s *spec.Spec
			var err error
			if len(args) == 1 {
				s, err = spec.Load(args[0])
			} else {
				s, err = spec.ParseBuiltin(spawnbench.BuiltinSpecs, "calibrate.cue", "specs/calibrate.cue (built in)")
			}
			if err != nil {
				return err
			}
			envs, err := spec.Select(s, only)
			if err != nil {
				return err
			}
			if out == "" {
				out = defaultOutDir(s.SafeName())
			}
			ses, err := c.openSession(cmd.Context(), out, "")
			if err != nil {
				return err
			}
			defer ses.Close()
			calErr := ses.Runner().Calibrate(ses.Context(), s, envs)
			if calErr != nil && !run.IsInterrupt(calErr) {
				return calErr
			}
			run.WriteVerdicts(c.stdout, ses.Runner().Set().Calibration, s.Calibration)
			if calErr == nil {
				_, calErr = ses.WriteReport()
			}
			if calErr != nil {
				fmt.Fprintf(c.stderr, "spawnbench: interrupted; the checks made so far are kept in %s\n", out)
				return calErr
			}
			fmt.Fprintf(c.stderr, "spawnbench: calibration in %s\n", out)
			for _, c := range ses.Runner().Set().Calibration {
				if !c.Pass {
					return errClockFailed
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result directory (default results/<time>-calibrate); later runs into it are marked by the verdicts")
	cmd.Flags().StringArrayVar(&only, "env", nil, "calibrate only this environment (repeatable)")
	return cmd
}

// errClockFailed makes a failed verdict visible in the exit status (1).
var errClockFailed = fmt.Errorf("a clock check failed; see the verdicts above (%s)", results.CalibrationFile)
