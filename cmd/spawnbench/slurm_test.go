package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// slurmFleetSpec is the small native spec the Slurm test shards: four
// cells, one per task of deploy/slurm/array.sbatch's array.
const slurmFleetSpec = `// A tiny stand-in for specs/sequential.cue: what the Slurm test runs.
environments: [{name: "native", kind: "native"}, {name: "native-o1", kind: "native", cflags: ["-O1"]}]
modes: ["sequential"]
n: [1, 2]
samples: {min: 2, processes: 1, pause: "1ms", warmup: 0}
schedule: seed: 5
schedule: settle: cap: "0s" // as writeSpec's: no waiting out the tests' own load
`

// TestSlurmArray runs docs/many-machines.md's Slurm section, line for line, on a
// one-node Slurm cluster of its own: munged, slurmctld and slurmd on
// loopback with their configuration, key, state and logs in a temporary
// directory and ports of their own, so no other Slurm or munge instance
// is touched. The job array of deploy/slurm/array.sbatch runs a small
// native spec (put where the page names specs/sequential.cue, in a
// directory laid out as a checkout), the shards are merged, and the merged
// set must hold the same processes and spawns as an unsharded run. Every
// daemon is stopped at the end, by its pid, pass or fail; they also die
// with the test process (parent-death signal) if it is killed.
func TestSlurmArray(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	commands, cluster, work, env := slurmPage(t, slurmFleetSpec)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+commands)
	sh.Dir, sh.Env = work, env
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("docs/many-machines.md's Slurm section: %v\n%s\n%s", err, out, cluster.logs(work))
	}
	if strings.Contains(string(out), "WARNING: the shards") || strings.Contains(string(out), "WARNING: no shard") {
		t.Errorf("merge warns about the shards:\n%s", out)
	}
	merged, _ := filepath.Glob(filepath.Join(work, "results", "slurm-*", "merged"))
	if len(merged) != 1 {
		t.Fatalf("want one results/slurm-JOB/merged, got %v\n%s", merged, out)
	}
	job := strings.TrimPrefix(filepath.Base(filepath.Dir(merged[0])), "slurm-")
	for k := range 4 {
		if _, err := os.Stat(filepath.Join(work, "results", fmt.Sprintf("slurm-%s_%d.log", job, k))); err != nil {
			t.Errorf("task %d left no log: %v", k, err)
		}
	}
	if _, err := os.Stat(filepath.Join(merged[0], "spawn.txt")); err != nil {
		t.Errorf("no benchfmt file: %v", err)
	}

	if _, stderr, code := runBinary(t, work, "run", "specs/sequential.cue", "-o", "whole"); code != 0 {
		t.Fatalf("unsharded run: exit %d: %s", code, stderr)
	}
	whole, err := results.Read(filepath.Join(work, "whole"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := results.Read(merged[0])
	if err != nil {
		t.Fatal(err)
	}
	wr, ws := setKeys(whole)
	mr, ms := setKeys(set)
	if len(wr) != 6 || !slices.Equal(wr, mr) || !slices.Equal(ws, ms) {
		t.Errorf("merged shards differ from the unsharded run:\nprocesses %v\nwant      %v\nspawns %v\nwant   %v", mr, wr, ms, ws)
	}
	var shards []string
	for _, inv := range set.Provenance.Invocations {
		if inv.Shard != nil {
			shards = append(shards, inv.Shard.String()+" "+inv.Shard.Source)
		}
	}
	slices.Sort(shards)
	if want := "0/4 SLURM_ARRAY_TASK_ID,1/4 SLURM_ARRAY_TASK_ID,2/4 SLURM_ARRAY_TASK_ID,3/4 SLURM_ARRAY_TASK_ID"; strings.Join(shards, ",") != want {
		t.Errorf("merged shards %v, want %s", shards, want)
	}
}

// slurmPage is what a test of docs/many-machines.md's Slurm section
// needs: the section's lines, a one-node cluster of the test's own, a
// checkout of spec (slurmCheckout) and the environment the lines run in.
// It skips the test where the cluster cannot be started.
func slurmPage(t *testing.T, spec string) (commands string, cluster *slurmCluster, work string, env []string) {
	t.Helper()
	needSlurm(t)
	root := repoRoot(t)
	commands = docSection(t, root, "docs/many-machines.md", "### Slurm")
	cluster = startSlurm(t)
	work = slurmCheckout(t, root, spec)
	return commands, cluster, work, cluster.env(work)
}

// needSlurm skips the test where a one-node Slurm cluster cannot be
// started.
func needSlurm(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scancel", "scontrol"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (bash .ci/setup installs Debian's slurm-wlm and munge): %v", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: munged runs as the munge user and slurmd as root, as their packages set them up")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("deploy/slurm/array.sbatch asks for 2 CPUs per task; this machine has 1")
	}
}

// slurmCheckout is a directory laid out as a checkout, where the page's
// lines run: deploy/slurm/array.sbatch, spec at specs/sequential.cue,
// bin/spawnbench (the test's build) and an empty results/.
func slurmCheckout(t *testing.T, root, spec string) string {
	t.Helper()
	work := t.TempDir()
	for _, d := range []string{"bin", "deploy/slurm", "specs", "results"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sbatch, err := os.ReadFile(filepath.Join(root, "deploy", "slurm", "array.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string][]byte{"deploy/slurm/array.sbatch": sbatch, "specs/sequential.cue": []byte(spec)} {
		if err := os.WriteFile(filepath.Join(work, path), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(binary(t), filepath.Join(work, "bin", "spawnbench")); err != nil {
		t.Fatal(err)
	}
	return work
}

// slurmRequeueSpec is what the requeue test shards: four cells of five
// processes of 0.4 s, one cell a shard, so a task runs for seconds.
const slurmRequeueSpec = `// A stand-in for specs/sequential.cue: what the Slurm requeue test runs.
environments: [for e in ["a", "b", "c", "d"] {name: e, kind: "command", run: ["/bin/sh", "-c", "sleep 0.4; echo 1 2 3", "{arg}"]}]
n: [1]
samples: {min: 5, processes: 1}
schedule: seed: 5
schedule: settle: cap: "0s" // as writeSpec's: no waiting out the tests' own load
`

// TestSlurmRequeue runs the page's Slurm lines, as TestSlurmArray does, on
// a spec of four shards, and requeues two running tasks with `scontrol
// requeue` (Slurm sends SIGTERM to the task, then runs the script again):
// task 1 midway, once it has journaled two processes, and task 2 right at
// its start, before its first process. Each requeued task must run twice
// (its log, appended to, shows both attempts) and complete its shard,
// and the merged set must hold every planned process exactly once, each
// ok (none recorded as killed by the requeue's signal).
func TestSlurmRequeue(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	commands, cluster, work, env := slurmPage(t, slurmRequeueSpec)
	slurm := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+commands)
	sh.Dir, sh.Env = work, env
	shOut := &fulltest.LockedBuffer{}
	sh.Stdout, sh.Stderr = shOut, shOut
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sh.Wait() }()

	// Requeue task 1 once it holds 2 processes, task 2 as soon as it runs.
	const midway, atStart = 1, 2
	requeued := map[int]bool{}
	job := ""
	var shErr error
watch:
	for {
		select {
		case shErr = <-done:
			break watch
		case <-time.After(50 * time.Millisecond):
		}
		if job == "" {
			job, _ = slurm("squeue", "-h", "-o", "%F")
			job, _, _ = strings.Cut(job, "\n")
			continue
		}
		tasks, err := slurm("squeue", "-h", "-r", "-j", job, "-o", "%K %T")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(tasks, "\n") {
			id, state, _ := strings.Cut(line, " ")
			k, err := strconv.Atoi(id)
			if err != nil || state != "RUNNING" || requeued[k] || (k != midway && k != atStart) {
				continue
			}
			set, _ := results.Read(filepath.Join(work, "results", "slurm-"+job, fmt.Sprintf("shard-%d", k)))
			measured := 0
			if set != nil {
				measured = len(set.Runs)
			}
			// At its start: spawnbench holds the shard's directory (it is
			// timing the machine, checking or building), no process yet.
			_, held := os.Stat(filepath.Join(work, "results", "slurm-"+job, fmt.Sprintf("shard-%d", k), results.LockFile))
			if k == midway && measured < 2 || k == atStart && (held != nil || measured > 0) {
				continue
			}
			if out, err := slurm("scontrol", "requeue", fmt.Sprintf("%s_%d", job, k)); err != nil {
				t.Fatalf("scontrol requeue %s_%d: %v: %s", job, k, err, out)
			}
			requeued[k] = true
			t.Logf("requeued task %d with %d processes measured", k, measured)
		}
	}
	if shErr != nil {
		t.Fatalf("docs/many-machines.md's Slurm section: %v\n%s\n%s", shErr, shOut.String(), cluster.logs(work))
	}
	if !requeued[midway] || !requeued[atStart] {
		t.Fatalf("the tasks ended before both requeues (done: %v)\n%s", requeued, shOut.String())
	}
	t.Logf("the page's lines:\n%s\n%s", commands, shOut.String())

	for k := range 4 {
		logText, err := os.ReadFile(filepath.Join(work, "results", fmt.Sprintf("slurm-%s_%d.log", job, k)))
		if err != nil {
			t.Fatalf("task %d left no log: %v", k, err)
		}
		// The log is appended to: a requeued task's shows both attempts.
		for attempt := 1; attempt <= 3; attempt++ {
			want := attempt == 1 || attempt == 2 && requeued[k]
			if got := strings.Contains(string(logText), fmt.Sprintf("spawnbench: task %d, attempt %d,", k, attempt)); got != want {
				t.Errorf("task %d's log shows attempt %d: %v, want %v:\n%s", k, attempt, got, want, logText)
			}
		}
		if requeued[k] && !strings.Contains(string(logText), "spawnbench: interrupted") {
			t.Errorf("task %d's log does not show the first attempt interrupted:\n%s", k, logText)
		}
		if requeued[k] {
			var story []string
			for _, line := range strings.Split(string(logText), "\n") {
				for _, mark := range []string{", attempt ", "DUE TO JOB REQUEUE", "interrupted", "resuming:", "holds no run", "results in"} {
					if strings.Contains(line, mark) {
						story = append(story, line)
						break
					}
				}
			}
			t.Logf("task %d's log, its attempts:\n%s", k, strings.Join(story, "\n"))
		}
		set, err := results.Read(filepath.Join(work, "results", "slurm-"+job, fmt.Sprintf("shard-%d", k)))
		if err != nil {
			t.Fatal(err)
		}
		byInv := map[int32]int{}
		for _, r := range set.Runs {
			byInv[r.Invocation]++
		}
		invs := set.Provenance.Invocations
		t.Logf("shard %d: %d processes, by invocation %v; invocations %s", k, len(set.Runs), byInv, invocationsText(invs))
		last := invs[len(invs)-1]
		switch k {
		case midway:
			// The first attempt's processes kept, the rest measured by the
			// second.
			if len(invs) != 2 || !invs[0].Interrupted || invs[1].Command != "resume" || byInv[invs[0].ID] < 2 || byInv[invs[1].ID] == 0 {
				t.Errorf("shard %d, requeued midway: invocations %s, processes by invocation %v", k, invocationsText(invs), byInv)
			}
		case atStart:
			// The first attempt measured nothing: every process is the
			// second's.
			if byInv[last.ID] != len(set.Runs) || last.Interrupted || last.EndedAt == nil {
				t.Errorf("shard %d, requeued at its start: invocations %s, processes by invocation %v", k, invocationsText(invs), byInv)
			}
		}
		if why := set.Incomplete(); len(why) > 0 {
			t.Errorf("shard %d incomplete: %v", k, why)
		}
	}

	merged, err := results.Read(filepath.Join(work, "results", "slurm-"+job, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range merged.Runs {
		seen[fmt.Sprintf("%s/%s/%d %d %v", r.Environment, r.Mode, r.N, r.Process, r.Warmup)]++
		if r.Status != results.StatusOK {
			t.Errorf("process %s %d: %s: %s", r.Environment, r.Process, r.Status, r.Error)
		}
	}
	var planned []string
	for _, e := range []string{"a", "b", "c", "d"} {
		for p := range 5 {
			planned = append(planned, fmt.Sprintf("%s/sequential/1 %d false", e, p))
		}
	}
	for _, k := range planned {
		if seen[k] != 1 {
			t.Errorf("planned process %s is in the merged set %d times", k, seen[k])
		}
	}
	if len(seen) != len(planned) || len(merged.Runs) != len(planned) {
		t.Errorf("merged set: %d runs of %d distinct processes, want the %d planned once each", len(merged.Runs), len(seen), len(planned))
	}
	t.Logf("merged set: %d runs, %d distinct processes of %d planned", len(merged.Runs), len(seen), len(planned))
}

// invocationsText is a set's invocations in a line: ID, command, how it
// ended, shard.
func invocationsText(invs []results.Invocation) string {
	var parts []string
	for _, inv := range invs {
		end := "ended"
		switch {
		case inv.Interrupted:
			end = "interrupted"
		case inv.EndedAt == nil:
			end = "never ended"
		}
		shard := "whole"
		if inv.Shard != nil {
			shard = inv.Shard.String()
		}
		parts = append(parts, fmt.Sprintf("%d %s %s shard %s", inv.ID, inv.Command, end, shard))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// setKeys are a set's processes and spawns without their measurements.
func setKeys(s *results.Set) (runs, samples []string) {
	for _, r := range s.Runs {
		runs = append(runs, fmt.Sprintf("%s %s %s %s %d %d %v", r.Machine, r.Environment, r.Kind, r.Mode, r.N, r.Process, r.Warmup))
	}
	for _, x := range s.Samples {
		samples = append(samples, fmt.Sprintf("%s %s %s %d %d %d %v", x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Thread, x.Warmup))
	}
	slices.Sort(runs)
	slices.Sort(samples)
	return runs, samples
}

// docSection is the first sh block under heading in page (a path from
// the repository's root).
func docSection(t *testing.T, root, page, heading string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var block strings.Builder
	in, inBlock := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && line == "```":
			return block.String()
		case inBlock:
			block.WriteString(line + "\n")
		case in && line == "```sh":
			inBlock = true
		case in && strings.HasPrefix(line, "#"):
			t.Fatalf("%s's %s section has no sh block", page, heading)
		case line == heading:
			in = true
		}
	}
	t.Fatalf("%s has no %s section with an sh block", page, heading)
	return ""
}

// slurmCluster is a one-node cluster the test started.
type slurmCluster struct {
	dir, conf, munge string
}

// env is the environment the page's lines run in: this cluster's
// configuration, the test's build cache, no shard or Slurm variable of
// an outer job.
func (c *slurmCluster) env(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "SPAWNBENCH_SHARD") && !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+c.conf, "XDG_CACHE_HOME="+filepath.Join(work, ".cache"))
}

// logs are the daemons' and the tasks' logs, for a failure message.
func (c *slurmCluster) logs(work string) string {
	var b strings.Builder
	paths := []string{filepath.Join(c.munge, "munged.log"), filepath.Join(c.dir, "slurmctld.log"), filepath.Join(c.dir, "slurmd.log")}
	tasks, _ := filepath.Glob(filepath.Join(work, "results", "slurm-*.log"))
	for _, p := range append(paths, tasks...) {
		body, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(body)), "\n")
		fmt.Fprintf(&b, "---- %s (last lines)\n%s\n", p, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}

// startSlurm starts munged, slurmctld and slurmd in the foreground as
// children of the test, each stopped in t.Cleanup (slurmd first, munged
// last, after cancelling any job left), and waits for the node to be idle.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	mungeUser, err := user.Lookup("munge")
	if err != nil {
		t.Skipf("no munge user (the munge package creates it): %v", err)
	}
	uid, _ := strconv.ParseUint(mungeUser.Uid, 10, 32)
	gid, _ := strconv.ParseUint(mungeUser.Gid, 10, 32)
	dir := t.TempDir()
	// munged, as the munge user, must reach its directory; munge refuses
	// a socket directory of mode 700.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), munge: filepath.Join(dir, "munge")}
	for _, d := range []string{c.munge, filepath.Join(dir, "state"), filepath.Join(dir, "spool")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(c.munge, "munge.key")
	if out, err := exec.Command("mungekey", "--create", "--keyfile="+key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v: %s", err, out)
	}
	for _, p := range []string{c.munge, key} {
		if err := os.Chown(p, int(uid), int(gid)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(c.munge, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(key, 0o600); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(c.munge, "munge.socket")
	munged := startDaemon(t, c, "munged", &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
		"/usr/sbin/munged", "--foreground", "--socket="+socket, "--key-file="+key,
		"--pid-file="+filepath.Join(c.munge, "munged.pid"), "--log-file="+filepath.Join(c.munge, "munged.log"),
		"--seed-file="+filepath.Join(c.munge, "munged.seed"))
	waitFor(t, 10*time.Second, "munged's socket", func() bool { _, err := os.Stat(socket); return err == nil }, munged)

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".") // hostname -s
	// The node as slurmd sees the hardware, so its configuration matches.
	hw, err := exec.Command("slurmd", "-C").Output()
	if err != nil {
		t.Fatalf("slurmd -C: %v", err)
	}
	node, _, _ := strings.Cut(string(hw), "\n")
	node = strings.Replace(node, "NodeName="+host, "NodeName="+host+" NodeAddr=127.0.0.1", 1) + " State=UNKNOWN"
	if !strings.Contains(node, "NodeAddr=") {
		t.Fatalf("slurmd -C names another host than %s: %s", host, node)
	}
	ports := freePorts(t, 2)
	conf := fmt.Sprintf(`ClusterName=spawnbenchtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it runs again
# (120 s by default).
AuthInfo=socket=%[2]s,cred_expire=10
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
# sbatch --wait polls every 2 s only while this is short (else up to 32 s).
MinJobAge=6
%[6]s
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, socket, ports[0], ports[1], dir, node)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// Before the daemons stop (cleanups run last first): cancel what is
	// left of our jobs on our controller, and wait until it is gone.
	slurm := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Env = c.env(dir)
		return cmd
	}
	ctld := startDaemon(t, c, "slurmctld", nil, "slurmctld", "-D")
	d := startDaemon(t, c, "slurmd", nil, "slurmd", "-D")
	t.Cleanup(func() {
		if out, err := slurm("scancel", "--user=root").CombinedOutput(); err != nil {
			t.Logf("scancel: %v: %s", err, out)
		}
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			out, err := slurm("squeue", "-h").Output()
			if err == nil && strings.TrimSpace(string(out)) == "" {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("jobs still queued after scancel; stopping the daemons anyway")
	})
	waitFor(t, 30*time.Second, "the node to be idle", func() bool {
		out, err := slurm("sinfo", "-h", "-o", "%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	}, ctld, d)
	return c
}

// daemon is one daemon the test started, in the foreground.
type daemon struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
}

// startDaemon starts a daemon as a child (as cred's user when given),
// killed if the test process dies, and stops it in t.Cleanup: SIGTERM,
// then SIGKILL after 10 s; the test fails if it does not exit.
func startDaemon(t *testing.T, c *slurmCluster, name string, cred *syscall.Credential, path string, args ...string) *daemon {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = c.dir
	cmd.Env = c.env(c.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	logf, err := os.Create(filepath.Join(c.dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	d := &daemon{name: name, cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig comes when the thread that started the daemon ends,
		// not the test: the daemon is started and waited for on a thread
		// of its own, which the in-process runs of this test binary
		// (which end threads they locked) cannot end under it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(d.exited)
	}()
	err = <-started
	logf.Close()
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.exited:
			return
		case <-time.After(10 * time.Second):
		}
		t.Errorf("%s (pid %d) did not stop on SIGTERM within 10 s; killing it", name, cmd.Process.Pid)
		_ = cmd.Process.Kill()
		<-d.exited
	})
	return d
}

// waitFor polls ok until it holds, failing the test after limit or as
// soon as one of the daemons has exited.
func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool, daemons ...*daemon) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		for _, d := range daemons {
			select {
			case <-d.exited:
				out, _ := os.ReadFile(filepath.Join(d.cmd.Dir, d.name+".out"))
				t.Fatalf("%s exited while waiting for %s: %v\n%s", d.name, what, d.cmd.ProcessState, out)
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freePorts are n TCP ports on loopback that nothing listens on now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			t.Fatal(err)
		}
	}
	return ports
}
