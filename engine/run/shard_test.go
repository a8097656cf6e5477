package run

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/cost"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

func TestShardFrom(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		flag  string
		count int
		env   map[string]string
		want  string // "K/N source", "" for none, "error: text" for an input error
	}{
		{"none", "", 0, nil, ""},
		{"flag", "1/3", 0, nil, "1/3 --shard"},
		{"flag wins over the environment", "0/2", 0, map[string]string{ShardVariable: "1/2", KubernetesIndex: "1"}, "0/2 --shard"},
		{"flag with an agreeing count", "2/3", 3, nil, "2/3 --shard"},
		{"SPAWNBENCH_SHARD", "", 0, map[string]string{ShardVariable: "3/4"}, "3/4 SPAWNBENCH_SHARD"},
		{"Kubernetes with --shards", "", 4, map[string]string{KubernetesIndex: "0"}, "0/4 JOB_COMPLETION_INDEX"},
		{"Kubernetes with SPAWNBENCH_SHARDS", "", 0, map[string]string{KubernetesIndex: "3", ShardsVariable: "4"}, "3/4 JOB_COMPLETION_INDEX"},
		{"Slurm from 0", "", 0, map[string]string{SlurmTaskID: "1", SlurmTaskCount: "2", SlurmTaskMin: "0"}, "1/2 SLURM_ARRAY_TASK_ID"},
		{"Slurm from 1", "", 0, map[string]string{SlurmTaskID: "1", SlurmTaskCount: "3", SlurmTaskMin: "1"}, "0/3 SLURM_ARRAY_TASK_ID"},
		{"Slurm with a step", "", 0, map[string]string{SlurmTaskID: "14", SlurmTaskCount: "3", SlurmTaskMin: "10", SlurmTaskStep: "2"}, "2/3 SLURM_ARRAY_TASK_ID"},
		{"Slurm without min", "", 0, map[string]string{SlurmTaskID: "2", SlurmTaskCount: "3"}, "2/3 SLURM_ARRAY_TASK_ID"},

		{"K equal to N", "2/2", 0, nil, "error: out of range"},
		{"negative K", "-1/2", 0, nil, "error: out of range"},
		{"zero shards", "0/0", 0, nil, "error: at least 1"},
		{"not K/N", "1", 0, nil, "error: give K/N"},
		{"not numbers", "a/b", 0, nil, "error: give K/N"},
		{"bad variable", "", 0, map[string]string{ShardVariable: "4/4"}, "error: SPAWNBENCH_SHARD"},
		{"count disagrees", "1/3", 4, nil, "error: disagrees"},
		{"count without index", "", 3, nil, "error: no shard index"},
		{"negative count", "", -1, nil, "error: at least 1"},
		{"Kubernetes without count", "", 0, map[string]string{KubernetesIndex: "1"}, "error: --shards N"},
		{"Kubernetes index past count", "", 2, map[string]string{KubernetesIndex: "2"}, "error: out of range"},
		{"Kubernetes index not a number", "", 2, map[string]string{KubernetesIndex: "x"}, "error: not a number"},
		{"Slurm past the count", "", 0, map[string]string{SlurmTaskID: "5", SlurmTaskCount: "2", SlurmTaskMin: "1"}, "error: out of range"},
		{"Slurm off its step", "", 0, map[string]string{SlurmTaskID: "3", SlurmTaskCount: "3", SlurmTaskMin: "0", SlurmTaskStep: "2"}, "error: evenly spaced"},
		{"Slurm without count", "", 0, map[string]string{SlurmTaskID: "3"}, "error: not a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh, err := ShardFrom(c.flag, c.count, func(k string) string { return c.env[k] })
			if want, ok := strings.CutPrefix(c.want, "error: "); ok {
				var in *inputerr.Error
				if !asInput(err, &in) || !strings.Contains(err.Error(), want) {
					t.Fatalf("got %v, %v; want an input error containing %q", sh, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if sh != nil {
				got = sh.String() + " " + sh.Source
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// processKeys are a set's rows without their measurements: which
// processes and spawns it holds, and on which machine.
func processKeys(s *results.Set) (runs, samples []string) {
	for _, r := range s.Runs {
		runs = append(runs, strings.Join([]string{r.Machine, r.Environment, r.Kind, r.Mode, itoa32(r.N), itoa32(r.Process), r.Status, itoa32(r.Samples)}, " "))
	}
	for _, x := range s.Samples {
		samples = append(samples, strings.Join([]string{x.Machine, x.Environment, x.Mode, itoa32(x.N), itoa32(x.Process), itoa32(x.Thread)}, " "))
	}
	slices.Sort(runs)
	slices.Sort(samples)
	return runs, samples
}

// TestMergedShardsEqualAnUnshardedRun runs a tiny native plan whole and
// as two shards, merges the shards through the writer and checks the
// merged set holds the same processes and spawns, every row traced to an
// invocation that records its shard.
func TestMergedShardsEqualAnUnshardedRun(t *testing.T) {
	t.Parallel()
	s, err := spec.Parse("test.cue", []byte(settleOff(`
environments: [{name: "native", kind: "native"}, {name: "native-o1", kind: "native", cflags: ["-O1"]}]
modes: ["sequential"]
n: [1, 3]
samples: {min: 2, processes: 1, pause: "1ms", warmup: 0}
schedule: seed: 7
`)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	if err := runPlanInto(t, context.Background(), whole, plan, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	var parts []results.Part
	for k := range 2 {
		sh, err := plan.Shard(k, 2, cost.Reference().Cell)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "shard"+itoa64(int64(k)))
		if err := runPlanInto(t, context.Background(), dir, sh, RunOptions{Shard: &results.Shard{Index: k, Count: 2, Source: "--shard"}}); err != nil {
			t.Fatal(err)
		}
		set, err := results.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if inv := set.Provenance.LastMeasuring(); inv.Shard == nil || inv.Shard.Index != k || inv.Shard.Count != 2 || len(inv.Planned) != len(sh.Cells) {
			t.Fatalf("shard %d provenance: shard %+v, %d planned cells", k, inv.Shard, len(inv.Planned))
		}
		parts = append(parts, results.Part{Dir: dir, Set: set})
	}
	now := time.Now().UTC()
	merged, err := results.Merge(parts, results.Invocation{Machine: Machine(), StartedAt: now, EndedAt: &now}, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "merged")
	w, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Import(merged); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := results.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	gotRuns, gotSamples := processKeys(got)
	wantRuns, wantSamples := processKeys(want)
	if !slices.Equal(gotRuns, wantRuns) || !slices.Equal(gotSamples, wantSamples) {
		t.Errorf("merged shards hold\n%v\n%d samples; the whole run\n%v\n%d samples", gotRuns, len(gotSamples), wantRuns, len(wantSamples))
	}
	if len(gotRuns) == 0 || len(gotSamples) == 0 {
		t.Fatal("nothing measured")
	}
	if why := got.Incomplete(); len(why) > 0 {
		t.Errorf("merged set incomplete: %v", why)
	}
	// Three invocations: two shards and the merge, renumbered; each row's
	// invocation is the shard that measured its cell.
	invs := got.Provenance.Invocations
	if len(invs) != 3 || invs[0].ID != 1 || invs[1].ID != 2 || invs[2].Command != "merge" {
		t.Fatalf("invocations: %+v", invs)
	}
	for _, r := range got.Runs {
		inv := got.Provenance.Find(r.Invocation)
		if inv == nil || inv.Shard == nil || inv.Origin == nil || !slices.ContainsFunc(inv.Planned, func(c results.PlannedCell) bool {
			return c.Environment == r.Environment && c.Mode == r.Mode && int32(c.N) == r.N
		}) {
			t.Errorf("run %s/%s/%d process %d traces to invocation %d: %+v", r.Environment, r.Mode, r.N, r.Process, r.Invocation, inv)
		}
	}
	// Merging again the same shard is refused, naming both directories.
	_, err = results.Merge([]results.Part{parts[0], {Dir: "copy", Set: parts[0].Set}}, results.Invocation{}, results.MergeOptions{})
	var in *inputerr.Error
	if !asInput(err, &in) || !strings.Contains(err.Error(), "the same result set") || !strings.Contains(err.Error(), "copy") {
		t.Errorf("merging one shard twice: %v", err)
	}
}
