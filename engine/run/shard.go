package run

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
)

// Environment variables a shard can come from when --shard is not given,
// in the order they are consulted.
const (
	// ShardVariable is spawnbench's own: "K/N", as --shard.
	ShardVariable = "SPAWNBENCH_SHARD"
	// ShardsVariable is the shard count when the index comes from
	// JOB_COMPLETION_INDEX (as --shards).
	ShardsVariable = "SPAWNBENCH_SHARDS"
	// KubernetesIndex is set by a Kubernetes Indexed Job: 0 .. completions-1.
	KubernetesIndex = "JOB_COMPLETION_INDEX"
	// Slurm job arrays set these; the first task's ID is
	// SLURM_ARRAY_TASK_MIN (an array need not start at 0) and IDs step
	// by SLURM_ARRAY_TASK_STEP.
	SlurmTaskID    = "SLURM_ARRAY_TASK_ID"
	SlurmTaskCount = "SLURM_ARRAY_TASK_COUNT"
	SlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"
	SlurmTaskStep  = "SLURM_ARRAY_TASK_STEP"
)

// ShardFrom decides which shard this run is, numbered from 0 as
// JOB_COMPLETION_INDEX is: flag is --shard's value ("K/N", "" when not
// given), count is --shards (0 when not given), getenv reads the
// environment. The first of --shard, SPAWNBENCH_SHARD,
// JOB_COMPLETION_INDEX (count from --shards or SPAWNBENCH_SHARDS) and
// SLURM_ARRAY_TASK_ID (as (ID - MIN) / STEP of SLURM_ARRAY_TASK_COUNT)
// that is set decides; nil when none is (the whole plan). A count given
// with --shards must agree with the shard's. Anything malformed is an
// input error naming the variable and the fix.
func ShardFrom(flag string, count int, getenv func(string) string) (*results.Shard, error) {
	if count < 0 {
		return nil, inputerr.New("--shards %d: give the number of shards, at least 1", count)
	}
	var sh *results.Shard
	var err error
	switch {
	case flag != "":
		sh, err = parseShard(flag, "--shard")
	case getenv(ShardVariable) != "":
		sh, err = parseShard(getenv(ShardVariable), ShardVariable)
	case getenv(KubernetesIndex) != "":
		sh, err = kubernetesShard(count, getenv)
	case getenv(SlurmTaskID) != "":
		sh, err = slurmShard(getenv)
	default:
		if count > 0 {
			return nil, inputerr.New("--shards %d names the shard count, but no shard index is given: add --shard K/%d, or set %s, %s or %s", count, count, ShardVariable, KubernetesIndex, SlurmTaskID)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if count > 0 && count != sh.Count {
		return nil, inputerr.New("--shards %d disagrees with %s=%s (%d shards); give one count", count, sh.Source, sh, sh.Count)
	}
	return sh, nil
}

// parseShard reads "K/N" with 0 <= K < N.
func parseShard(v, source string) (*results.Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	if !ok || kerr != nil || nerr != nil {
		return nil, inputerr.New("%s %q: give K/N, shard K of N numbered from 0, e.g. 0/4 for the first of four", source, v)
	}
	return checkShard(k, n, source, v)
}

func checkShard(k, n int, source, v string) (*results.Shard, error) {
	if n < 1 {
		return nil, inputerr.New("%s %q: the shard count must be at least 1", source, v)
	}
	if k < 0 || k >= n {
		return nil, inputerr.New("%s %q: shard %d is out of range; shards are numbered from 0, so give 0 <= K <= %d", source, v, k, n-1)
	}
	return &results.Shard{Index: k, Count: n, Source: source}, nil
}

func kubernetesShard(count int, getenv func(string) string) (*results.Shard, error) {
	v := getenv(KubernetesIndex)
	k, err := strconv.Atoi(v)
	if err != nil {
		return nil, inputerr.New("%s=%q is not a number; it is set by a Kubernetes Indexed Job", KubernetesIndex, v)
	}
	if count == 0 && getenv(ShardsVariable) != "" {
		c := getenv(ShardsVariable)
		if count, err = strconv.Atoi(c); err != nil || count < 1 {
			return nil, inputerr.New("%s=%q: give the number of shards, the Job's completions", ShardsVariable, c)
		}
	}
	if count == 0 {
		return nil, inputerr.New("%s=%d gives the shard index but not the count: add --shards N or set %s to the Job's completions", KubernetesIndex, k, ShardsVariable)
	}
	return checkShard(k, count, KubernetesIndex, fmt.Sprintf("%d (of %d)", k, count))
}

func slurmShard(getenv func(string) string) (*results.Shard, error) {
	num := func(name string, def int) (int, error) {
		v := getenv(name)
		if v == "" && def >= 0 {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, inputerr.New("%s=%q is not a number; Slurm sets it in a job array (sbatch --array=0-N)", name, v)
		}
		return n, nil
	}
	id, err := num(SlurmTaskID, -1)
	if err != nil {
		return nil, err
	}
	count, err := num(SlurmTaskCount, -1)
	if err != nil {
		return nil, err
	}
	lo, err := num(SlurmTaskMin, 0)
	if err != nil {
		return nil, err
	}
	step, err := num(SlurmTaskStep, 1)
	if err != nil {
		return nil, err
	}
	if step < 1 || (id-lo)%step != 0 {
		return nil, inputerr.New("%s=%d with min %d and step %d does not give a shard number; use an evenly spaced array (sbatch --array=0-%d) or set %s=K/N", SlurmTaskID, id, lo, step, max(count-1, 0), ShardVariable)
	}
	return checkShard((id-lo)/step, count, SlurmTaskID, fmt.Sprintf("%d (min %d, step %d, count %d)", id, lo, step, count))
}

// sameShard: the same part of the plan, split with the same costs
// (where both record them; older sets do not).
func sameShard(a, b *results.Shard) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Index == b.Index && a.Count == b.Count && (a.Costs == b.Costs || a.Costs == "" || b.Costs == "")
}

func shardText(s *results.Shard) string {
	if s == nil {
		return "the whole plan"
	}
	if s.Costs != "" {
		return fmt.Sprintf("shard %s split with costs %s (give the same --costs)", s, s.Costs)
	}
	return "shard " + s.String()
}
