package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
)

// requeueSpec is a spec of 6 processes of a fifth of a second each, one
// cell, with a build step of half a second: time to stop it while it
// builds, and midway.
const requeueSpec = `name: "requeue"
environments: [{name: "s", kind: "command", build: [["sleep", "0.5"]], run: ["/bin/sh", "-c", "sleep 0.2; echo 1 2 3", "{arg}"]}]
n: [1]
samples: {min: 6, processes: 1}
`

// completeOnce checks that out holds the plan's processes, each once,
// and that the set is complete.
func completeOnce(t *testing.T, out string, processes int) *results.Set {
	t.Helper()
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range set.Runs {
		seen[fmt.Sprintf("%s %s/%s/%d %d %v", r.Machine, r.Environment, r.Mode, r.N, r.Process, r.Warmup)]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("process %s recorded %d times", k, n)
		}
	}
	if len(seen) != processes || len(set.Runs) != processes {
		t.Errorf("%d runs of %d distinct processes, want %d", len(set.Runs), len(seen), processes)
	}
	if why := set.Incomplete(); len(why) > 0 {
		t.Errorf("set incomplete: %v", why)
	}
	return set
}

// retryIsDone runs the requeue-safe line once more on a complete set:
// exit 0 at once, saying so, with nothing measured or recorded.
func retryIsDone(t *testing.T, dir, spec, out string, extra ...string) {
	t.Helper()
	before, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, append([]string{"run", spec, "-o", out, "--resume"}, extra...)...)
	if code != 0 || !strings.Contains(stderr, out+" is complete") || strings.Contains(stderr, "checking ") || strings.Contains(stderr, "building ") {
		t.Errorf("--resume of a complete set: exit %d, stderr %q; want 0 and %q, nothing checked or built", code, stderr, out+" is complete")
	}
	after, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Provenance.Invocations) != len(before.Provenance.Invocations) || len(after.Runs) != len(before.Runs) {
		t.Errorf("--resume of a complete set recorded something: %d invocations (was %d), %d runs (was %d)",
			len(after.Provenance.Invocations), len(before.Provenance.Invocations), len(after.Runs), len(before.Runs))
	}
}

// mainThreadCPU is the time pid's main thread has run, from
// /proc/PID/schedstat (package initialisation runs on the main thread).
func mainThreadCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/%d/schedstat is empty", pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns), err
}

// stopAt starts `run SPEC -o OUT --resume`, sends it sig once reached
// says so (asked every poll), and checks how it ended: exit 130 after
// SIGINT or SIGTERM, the signal itself after SIGKILL.
func stopAt(t *testing.T, dir string, env []string, spec, out string, sig syscall.Signal, instant string, poll time.Duration, reached func(pid int, out string) bool) {
	t.Helper()
	cmd, stderr := startLogged(t, dir, env, "run", spec, "-o", out, "--resume")
	for deadline := time.Now().Add(60 * time.Second); !reached(cmd.Process.Pid, out); time.Sleep(poll) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the run did not reach %s in 60 s: %s", instant, stderr.String())
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("exit %v after %v: %s", err, sig, stderr.String())
	}
	ws := exit.Sys().(syscall.WaitStatus)
	switch {
	case sig == syscall.SIGKILL && (!ws.Signaled() || ws.Signal() != syscall.SIGKILL):
		t.Fatalf("after SIGKILL: %v", err)
	case sig != syscall.SIGKILL && exit.ExitCode() != 130:
		t.Fatalf("after %v at %s: %v, want exit 130; stderr:\n%s", sig, instant, err, stderr.String())
	}
}

// journalHas says whether out's journal holds a record of kind k.
func journalHas(out, k string) bool {
	b, _ := os.ReadFile(filepath.Join(out, results.JournalFile))
	return strings.Contains(string(b), `{"k":"`+k+`"`)
}

// journaledProcesses counts the whole process records of out's journal:
// what results.Read would find, without reading the set.
func journaledProcesses(out string) int {
	b, _ := os.ReadFile(filepath.Join(out, results.JournalFile))
	whole := b[:bytes.LastIndexByte(b, '\n')+1]
	return bytes.Count(whole, []byte(`{"k":"process"`))
}

// TestFaultBattery is the fault battery's interrupts, the requeue-safe
// way: a run stopped by SIGINT, SIGTERM or SIGKILL at its start (its
// first milliseconds, before it has locked or recorded anything), while
// it builds (its invocation recorded, no process yet) and
// midway (processes journaled). SIGINT and SIGTERM end it with exit 130 at
// every instant, what was measured kept; after any of the three, the
// command line a scheduler's retry runs (`run SPEC -o DIR --resume`)
// completes the set with each process once, and the same line once more
// exits 0 at once, the set complete.
func TestFaultBattery(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	if _, err := mainThreadCPU(os.Getpid()); err != nil {
		t.Skipf("no /proc/PID/schedstat to time the start instant: %v", err)
	}
	type instant struct {
		name string
		// reached says when to signal the run (pid, its directory);
		// poll is how often it is asked: the start's few milliseconds
		// need a short one, the others last long enough for a cheap one.
		reached func(pid int, out string) bool
		poll    time.Duration
		// left checks what the stopped run left in its directory.
		left func(t *testing.T, out string)
		// missed says the signal came later than the instant (nil: it
		// cannot): a busy machine may run the process past it before
		// the poll sees it, and then the attempt is made again.
		missed func(out string) bool
	}
	instants := []instant{
		{
			// The interrupt package's init runs about 5 ms into the main
			// thread's CPU time (most of it the runtime's start in a binary
			// this large), main a few ms later; at 15 ms the run has
			// locked and recorded nothing yet.
			name: "start",
			poll: 200 * time.Microsecond,
			// A run whose main goroutine left the main thread early may
			// record its invocation (or end) first: that attempt missed
			// the instant, and is made again.
			reached: func(pid int, out string) bool {
				cpu, err := mainThreadCPU(pid)
				return err != nil || cpu >= 15*time.Millisecond || journalHas(out, "invocation")
			},
			left: func(t *testing.T, out string) {},
			missed: func(out string) bool {
				set, err := results.Read(out)
				return err == nil && len(set.Provenance.Invocations) > 0
			},
		},
		{
			name:    "building",
			poll:    2 * time.Millisecond,
			reached: func(_ int, out string) bool { return journalHas(out, "invocation") && !journalHas(out, "process") },
			left: func(t *testing.T, out string) {
				if set, err := results.Read(out); err != nil || len(set.Provenance.Invocations) != 1 || len(set.Runs) != 0 {
					t.Errorf("stopped while building: %v, want one invocation and no process", err)
				}
			},
		},
		{
			name:    "midway",
			poll:    2 * time.Millisecond,
			reached: func(_ int, out string) bool { return journaledProcesses(out) >= 2 },
			left: func(t *testing.T, out string) {
				if set, err := results.Read(out); err != nil || len(set.Runs) < 2 || len(set.Runs) >= 6 {
					t.Errorf("stopped midway: %v, want 2 to 5 processes kept", err)
				}
			},
		},
	}
	signals := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
	for _, at := range instants {
		for _, sig := range signals {
			t.Run(at.name+"/"+sig.String(), func(t *testing.T) {
				// The start instant is a few milliseconds a poll must
				// catch: its three cases run one at a time, not beside
				// the battery's other runs.
				if at.name != "start" {
					t.Parallel()
				}
				dir := t.TempDir()
				p := writeSpec(t, dir, requeueSpec)
				// A build cache of its own: the run must build, for
				// the building instant (the machine's probe is the
				// package's: the battery is not about probing).
				cache := ownBuilds(t, dir)
				var out string
				for attempt := 1; ; attempt++ {
					out = filepath.Join(dir, fmt.Sprintf("out-%d", attempt))
					stopAt(t, dir, cache, p, out, sig, at.name, at.poll, at.reached)
					if at.missed == nil || !at.missed(out) {
						break
					}
					if attempt == 10 {
						t.Fatalf("in %d attempts the run had always recorded its invocation before the signal reached it: the %s instant was never hit", attempt, at.name)
					}
					t.Logf("attempt %d: the signal came after the %s instant; again", attempt, at.name)
				}
				at.left(t, out)
				_, retryErr, code := runCLIWith(t, dir, cache, "run", p, "-o", out, "--resume")
				if code != 0 {
					t.Fatalf("the retry: exit %d: %s", code, retryErr)
				}
				completeOnce(t, out, 6)
				if left, _ := filepath.Glob(filepath.Join(out, ".*"+atomicfile.TempMarker+"*")); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
				retryIsDone(t, dir, p, out)
			})
		}
	}
}

// startSpec is a spec of 6 processes of one cell that take no time, for
// the runs that need only to start and complete.
const startSpec = `name: "start"
environments: [{name: "s", kind: "command", run: ["/bin/sh", "-c", "echo 1 2 3", "{arg}"]}]
n: [1]
samples: {min: 6, processes: 1}
`

// TestResumeIsRightOnEveryAttempt: `run SPEC -o DIR --resume` starts the
// set where DIR is missing or holds only what a first attempt killed
// before it recorded anything leaves (an empty directory, the lock, an
// empty or header-only journal, temporary files), writes a report a kill
// cut short, and refuses a directory of another spec or another shard
// (exit 2, naming the difference).
func TestResumeIsRightOnEveryAttempt(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	// The leftovers need a run only to start and complete: processes of
	// their own that take no time. The run killed midway (another
	// machine) takes edgeSpec's, long enough to stop it there.
	p := writeSpec(t, dir, startSpec)
	// What a first attempt killed before it recorded anything can leave:
	// file name to contents (nil: no directory).
	leftovers := map[string]map[string]string{
		"missing":          nil,
		"empty":            {},
		"lock only":        {results.LockFile: ""},
		"empty journal":    {results.LockFile: "", results.JournalFile: ""},
		"cut-off header":   {results.LockFile: "", results.JournalFile: `{"k":"ba`},
		"header only":      {results.LockFile: "", results.JournalFile: `{"k":"base","set":"a1b2c3"}` + "\n"},
		"a temporary file": {results.LockFile: "", "." + results.SamplesFile + atomicfile.TempMarker + "12345": "PAR1"},
	}
	// A task run again on another node: that node is another machine, and
	// measures the plan whole; a third attempt anywhere (here, this
	// machine under its own name) finds it complete.
	t.Run("another machine", func(t *testing.T) {
		out := filepath.Join(dir, "moved")
		edge := writeSpec(t, t.TempDir(), edgeSpec)
		on := func(node string) []string { return append(sharedCache(), run.HostnameVariable+"="+node) }
		cmd, _ := startRunWith(t, dir, on("node-a"), edge, out, "--resume")
		waitRuns(t, out, 3, cmd)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		_, stderr, code := runCLIWith(t, dir, on("node-b"), "run", edge, "-o", out, "--resume")
		if code != 0 || !strings.Contains(stderr, "measured on node-a") {
			t.Fatalf("on node-b: exit %d, stderr %q; want 0 and a note of node-a's processes", code, stderr)
		}
		set, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		byHost := map[string]int{}
		for _, r := range set.Runs {
			for _, inv := range set.Provenance.Invocations {
				if inv.ID == r.Invocation {
					byHost[inv.Machine.Hostname]++
				}
			}
		}
		if byHost["node-b"] != 12 || byHost["node-a"] < 3 || byHost["node-a"] >= 12 {
			t.Errorf("processes by machine %v: want node-a's kept and all 12 on node-b", byHost)
		}
		retryIsDone(t, dir, edge, out)
	})

	// The leftovers one after the other in the test's own slot, as the
	// rest: as parallel subtests they queued behind the package's other
	// parallel tests, and what follows them ended the package alone.
	t.Run("leftovers", func(t *testing.T) {
		for name, files := range leftovers {
			t.Run(name, func(t *testing.T) {
				out := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
				if files != nil {
					if err := os.Mkdir(out, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for f, body := range files {
					if err := os.WriteFile(filepath.Join(out, f), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, stderr, code := runCLI(t, "run", p, "-o", out, "--resume")
				if code != 0 || !strings.Contains(stderr, "holds no run of "+p+" yet: starting it") {
					t.Fatalf("exit %d, stderr %q; want 0 and a note that it starts", code, stderr)
				}
				set := completeOnce(t, out, 6)
				if invs := set.Provenance.Invocations; len(invs) != 1 || invs[0].Command != "run" {
					t.Errorf("invocations %+v, want one run", invs)
				}
			})
		}
	})

	// A kill during the report of a finished run: the retry writes it.
	out := filepath.Join(dir, "missing")
	t.Run("report cut short", func(t *testing.T) {
		if err := os.Remove(filepath.Join(out, "report.md")); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCLI(t, "run", p, "-o", out, "--resume")
		if _, err := os.Stat(filepath.Join(out, "report.md")); code != 0 || err != nil || !strings.Contains(stderr, "is complete") {
			t.Errorf("exit %d, report %v, stderr %q", code, err, stderr)
		}
		retryIsDone(t, dir, p, out)
	})

	t.Run("another spec or shard", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.cue")
		if err := os.WriteFile(other, []byte(strings.Replace(edgeSpec, "min: 12", "min: 3", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, []string{"run", other, "-o", out, "--resume"}, "was made by spec "+p, other)
		wantRefused(t, []string{"run", p, "-o", out, "--resume", "--shard", "0/1"}, "was the whole plan, not shard 0/1")
		two := writeSpec(t, t.TempDir(), tinyFleetSpec)
		shard := filepath.Join(dir, "shard")
		mustRun(t, "run", two, "--shard", "0/2", "-o", shard, "--resume")
		wantRefused(t, []string{"run", two, "--shard", "1/2", "-o", shard, "--resume"}, "was shard 0/2", "not shard 1/2")
		wantRefused(t, []string{"run", two, "-o", shard, "--resume"}, "was shard 0/2", "not the whole plan")
		retryIsDone(t, dir, two, shard, "--shard", "0/2")
	})
}
