package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"spawnbench"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/cost"
	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
)

func init() { commands = append(commands, newPlanCmd) }

func newPlanCmd(c *cli) *cobra.Command {
	var only []string
	var format string
	var seed int64
	var shards int
	var costs, from string
	var precision float64
	var wide bool
	cmd := &cobra.Command{
		Use:   "plan SPEC.cue | plan --precision P --from SET",
		Short: "Print the resolved plan (cells, processes, expected time, schedule) without running anything",
		Example: `  spawnbench plan specs/sequential.cue                 # cells, processes, expected time
  spawnbench plan specs/study.cue --shards 4          # how the plan splits over four machines
  spawnbench plan --precision 0.05 --from results/reference   # occasions × processes for ±5%`,
		Long: `Plan loads SPEC.cue, checks it against the schema (spawnbench schema) and
prints the plan: every cell with its processes and expected wall time, the
total, and the schedule's order and seed; then it asks each environment's
tools whether they are there and can run it, as run will, and names the
environments run would skip, with the reason. Expected times come from the wall
times per process of the committed reference set (results/reference, built
in), rescaled to this machine: by the result sets in results/ that this
machine measured, or else by a short probe (a few processes of the raw
workers in Node.js and, for a plan with warm browsers, in each browser: a
few seconds, kept for an hour), which plan names; the expected total comes
with the range the machine's measurements spread over. With --costs DIR
they are that earlier result set's, as measured. Builds are not included.
--shards N shows how the plan splits into N shards of whole cells, balanced
by expected time, as run --shard K/N cuts them. --format json prints the
whole resolved plan: the spec with its defaults filled, each cell with
everything its processes need, and every step of the schedule in run order.
The text fits 100 columns; --wide adds each cell's kind and payload.

--precision P --from SET designs instead: for every cell SET measured, the
occasions and processes per occasion that reach a 95% interval of ±P at the
least wall time, from SET's variance components (between occasions,
processes and spawns) and its costs (a process's wall time; an occasion's
overhead), after Kalibera and Jones, and the expected time.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("precision") || cmd.Flags().Changed("from") {
				return exactArgs(0, "plan --precision P --from SET takes no spec: it designs the cells SET measured")(cmd, args)
			}
			return exactArgs(1, "give one spec file, e.g. spawnbench plan specs/sequential.cue")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("precision") || cmd.Flags().Changed("from") {
				if from == "" || !cmd.Flags().Changed("precision") {
					return usageError{fmt.Errorf("plan: --precision P and --from SET go together, e.g. plan --precision 0.05 --from results/reference")}
				}
				return c.writeDesign(from, precision, format, wide)
			}
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
			model, err := costModel(costs)
			if err != nil {
				return err
			}
			alloc, err := run.AllocateBottomLine(plan, model)
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
				summary, err := shardSummary(plan, shards, model, wide)
				if err != nil {
					return err
				}
				fmt.Fprint(c.stdout, summary)
				return nil
			}
			if format == "json" {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(plan)
			}
			fmt.Fprint(c.stdout, planText(plan, machineCosts(cmd.Context(), model, costs, plan, c.stderr), alloc, wide))
			fmt.Fprint(c.stdout, planSkips(cmd.Context(), plan, wide))
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&only, "env", nil, "plan only this environment (repeatable)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json (the resolved plan)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "the schedule's seed, instead of the spec's or a random one")
	cmd.Flags().IntVar(&shards, "shards", 0, "show how the plan splits into this many shards of whole cells, balanced by expected time")
	cmd.Flags().Float64Var(&precision, "precision", 0, "design for this relative half-width of each cell's 95% interval (with --from), e.g. 0.05")
	cmd.Flags().StringVar(&from, "from", "", "the measured result set whose variance components and costs --precision designs from")
	wideFlag(cmd, &wide, "each cell's kind and payload; each shard's cells and each sentence on one line")
	costsFlag(cmd, &costs)
	return cmd
}

// costsFlag adds --costs, the one way plan and run take their costs.
func costsFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "costs", "", "expected times from this earlier result set's wall times (default: the built-in reference set's); give every shard the same")
}

// costModel is the cost model of --costs DIR, or the built-in one.
func costModel(dir string) (*cost.Model, error) {
	if dir == "" {
		return cost.Reference(), nil
	}
	return run.LoadCosts(dir)
}

// machineCosts is the model rescaled to this machine by the result sets
// this machine measured in results/, or else by a probe
// (run.MachineCosts); with --costs, the model as measured.
func machineCosts(ctx context.Context, model *cost.Model, costsDir string, p *spec.RunPlan, log io.Writer) *cost.Model {
	if costsDir != "" {
		return model
	}
	return run.MachineCosts(ctx, model, p, "results", buildcache.Default(spawnbench.Sources), log)
}

// expectedText is the plan's expected time with its range.
func expectedText(p *spec.RunPlan, model *cost.Model) string {
	total := cost.Round(model.Plan(p))
	lo, hi := model.Range(p)
	if lo == hi {
		return "expected " + total.String()
	}
	return fmt.Sprintf("expected %s (%s to %s as this machine's measurements spread)", total, cost.Round(lo), cost.Round(hi))
}

// planText renders the plan as a table, with each cell's expected wall
// time and the total; wide adds each cell's kind and payload and keeps
// every sentence on one line.
func planText(p *spec.RunPlan, model *cost.Model, alloc *report.Allocation, wide bool) string {
	var b strings.Builder
	say := lineWriter(&b, wide)
	s := p.Spec
	say("spec %s (%s), sha256 %s", s.Path, s.Name, s.Hash[:12])
	say("min samples %d, min processes %d, pause %s, warm-up processes %d, timeout %s, pinning %s, view last %d for n >= %d",
		s.Samples.Min, s.Samples.Processes, s.Samples.Pause, s.Samples.Warmup, s.Timeout, spec.Pinning(s.CPUs), s.Views.Last, s.Views.MinN)
	if a := s.Samples; a.Adaptive {
		say("adaptive: rounds of %d processes until the 95%% interval is within ±%.3g%%, at most %d processes and %s of added rounds per cell (expected times count the planned processes only)",
			a.Round, a.Precision*100, a.MaxProcesses, a.Budget)
	} else {
		say("target precision ±%.3g%% (reported, not enforced: adaptive is off)", s.Samples.Precision*100)
	}
	if b := s.BottomLine; b != nil && alloc != nil {
		say("bottom line: processes allocated before the run from %s for ±%.3g%% (Neyman's allocation, at most %d a cell, at most %s added): %d of the %d bottom-line ratios it shows reach it, adding %s (counted in the expected times)",
			b.From, b.Precision*100, b.MaxProcesses, b.Budget, alloc.Reached, alloc.Ratios, cost.Round(time.Duration(float64(alloc.AddedS)*float64(time.Second))))
		if len(alloc.Unreached) > 0 {
			var names []string
			for _, u := range alloc.Unreached {
				names = append(names, fmt.Sprintf("%s at n = %d%s", u.Environment, u.Column.N, map[bool]string{true: fmt.Sprintf(" (last %d)", u.Column.Last)}[u.Column.Last > 0]))
			}
			say("bottom line: short of ±%.3g%% within the budget: %s", b.Precision*100, strings.Join(names, ", "))
		}
		if b.TopUp > 0 {
			say("bottom line: then, after the planned processes, up to %s more (not in the expected times) for the ratios the run's own processes leave short of ±%.3g%%",
				b.TopUp, b.Precision*100)
		}
	} else if b != nil {
		covered := 0
		for _, c := range p.Cells {
			if b.Covers(c.Env, c.N) {
				covered++
			}
		}
		say("bottom line: %d cells (%s at n %v) get rounds of %d processes until the 95%% interval is within ±%.3g%%, at most %d processes and %s of added rounds per cell: up to %s more than the expected times, which count the planned processes only",
			covered, strings.Join(b.Environments, ", "), b.N, b.Round, b.Precision*100, b.MaxProcesses, b.Budget, time.Duration(covered)*b.Budget)
	}
	for _, e := range s.Environments {
		if e.Pinning != nil {
			say("pinning of %s: %s", e.Name, spec.Pinning(s.CPUsOf(e)))
		}
	}
	if p.Schedule.Order == spec.Blocked {
		say("order blocked (cell by cell)")
	} else {
		say("order %s, seed %d", p.Schedule.Order, p.Schedule.Seed)
	}
	say("expected times from %s", model.Source)
	b.WriteString("\n")
	// The default drops the kind (the environment's name says it) and the
	// payload (the kind says it) to fit.
	t := table{right: map[int]bool{3: true, 4: true, 5: true, 6: true, 7: true}}
	t.add("ENVIRONMENT", "HOST", "MODE", "N", "PROCESSES", "WARMUP", "SAMPLES", "EXPECTED")
	if wide {
		t = table{right: map[int]bool{5: true, 6: true, 7: true, 8: true, 9: true}}
		t.add("ENVIRONMENT", "KIND", "PAYLOAD", "HOST", "MODE", "N", "PROCESSES", "WARMUP", "SAMPLES", "EXPECTED")
	}
	var guessed []string
	for _, c := range p.Cells {
		mark := ""
		if basis := model.Basis(c); basis != "environment" {
			mark = "*"
			guessed = append(guessed, c.Key())
		}
		figures := []string{c.Mode, strconv.Itoa(c.N), strconv.Itoa(c.Processes), strconv.Itoa(c.Warmup), strconv.Itoa(c.Samples()), cost.Round(model.Cell(c)).String() + mark}
		if wide {
			t.add(append([]string{c.Env.Name, c.Env.Kind, c.Env.Payload, c.Env.Host}, figures...)...)
		} else {
			t.add(append([]string{c.Env.Name, c.Env.Host}, figures...)...)
		}
	}
	b.WriteString(t.String())
	b.WriteString("\n")
	say("%d cells, %d processes, %s (builds not included)", len(p.Cells), p.TotalProcesses(), expectedText(p, model))
	if len(guessed) > 0 {
		say("* %d cell(s) whose environment the costs never measured as planned: estimated from their kind, from their cold-started twin less a warm browser's saving, or from other kinds", len(guessed))
	}
	return b.String()
}

// lineWriter writes one sentence a line to b: wrapped to textWidth,
// its later lines indented, unless wide.
func lineWriter(b *strings.Builder, wide bool) func(format string, args ...any) {
	return func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if wide {
			b.WriteString(line + "\n")
			return
		}
		b.WriteString(wrap(line, "", "  "))
	}
}

// planSkips asks each planned environment's tools whether they are there
// and can run it, as run will before it measures anything, and names the
// environments run would skip, with the reason; empty when none.
func planSkips(ctx context.Context, p *spec.RunPlan, wide bool) string {
	var b strings.Builder
	say := lineWriter(&b, wide)
	seen := map[string]bool{}
	for _, c := range p.Cells {
		es := c.Env
		if seen[es.Name] {
			continue
		}
		seen[es.Name] = true
		e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
		if err != nil {
			say("run will skip %s: %v", es.Name, err)
			continue
		}
		switch tc := e.Toolchain(ctx); {
		case tc.Unfit:
			say("run will skip %s: %s", es.Name, tc.Problem)
		case !tc.Present:
			say("run will skip %s: toolchain missing: %s; install it with: %s", es.Name, tc.Problem, tc.Install)
		}
	}
	return b.String()
}

// shardSummary renders the split of the plan into n shards, each with
// its cells (on indented lines, or on its line when wide), and the
// spread of their expected times.
func shardSummary(p *spec.RunPlan, n int, model *cost.Model, wide bool) (string, error) {
	var b strings.Builder
	var lo, hi time.Duration
	for k := range n {
		s, err := p.Shard(k, n, model.Cell)
		if err != nil {
			return "", err
		}
		expected := model.Plan(s)
		var keys []string
		for _, c := range s.Cells {
			keys = append(keys, c.Key())
		}
		head := fmt.Sprintf("shard %d/%d: %d cells, %d processes, expected %s", k, n, len(s.Cells), s.TotalProcesses(), cost.Round(expected))
		if wide {
			fmt.Fprintf(&b, "%s: %v\n", head, keys)
		} else {
			b.WriteString(head + "\n")
			b.WriteString(wrap(strings.Join(keys, " "), "  ", "  "))
		}
		if k == 0 || expected < lo {
			lo = expected
		}
		hi = max(hi, expected)
	}
	say := lineWriter(&b, wide)
	say("expected per shard from %s to %s (costs from %s)", cost.Round(lo), cost.Round(hi), model.Source)
	return b.String(), nil
}
