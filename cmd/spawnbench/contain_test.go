package main

import (
	"encoding/json"
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
)

// pidIn waits up to limit for a pid written to file and returns it.
func pidIn(t *testing.T, file string, limit time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s after %s", file, limit)
		}
	}
}

// running says whether pid runs (a zombie does not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// gone waits up to limit for pid to end.
func gone(pid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// containment reads the containment the last invocation in out recorded.
func containment(t *testing.T, out string) string {
	kind, _ := containmentDetail(t, out)
	return kind
}

// containmentDetail reads the containment, and the sentence that says
// how it held the trees, of the last invocation in out.
func containmentDetail(t *testing.T, out string) (kind, detail string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "provenance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Invocations []struct {
			Containment string `json:"containment"`
			Detail      string `json:"containment_detail"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal(b, &p); err != nil || len(p.Invocations) == 0 {
		t.Fatalf("provenance: %v: %s", err, b)
	}
	last := p.Invocations[len(p.Invocations)-1]
	return last.Containment, last.Detail
}

// TestEscapeeIsKilled: issue 20, item 1. A descendant that clears its
// environment and is orphaned at once does not outlive the run.
func TestEscapeeIsKilled(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "esc"
environments: [{name: "envi", kind: "command", run: ["/bin/sh", "-c", "(env -i D=$D setsid sh -c 'echo $$ > $D/esc.pid; exec sleep 608' </dev/null >/dev/null 2>&1 &); sleep 1; echo 1 2 3", "{arg}"], env: ["D=`+dir+`"]}]
n: [1]
samples: min: 1
`)
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "run", p, "-o", out)
	pid := pidIn(t, filepath.Join(dir, "esc.pid"), time.Second)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	kind := containment(t, out)
	if kind == "" || !strings.Contains(stderr, "process trees held by: "+kind) {
		t.Errorf("containment %q not recorded or not said: %s", kind, stderr)
	}
	if running(pid) {
		t.Errorf("the escapee %d still runs after the run ended", pid)
	}
}

// TestSIGKILLLeavesNothing: issue 20, item 2. When spawnbench is
// SIGKILLed, the benchmark's descendants die with it.
func TestSIGKILLLeavesNothing(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "kill"
environments: [{name: "s", kind: "command", run: ["/bin/sh", "-c", "sleep 609 & echo $! > $D/kill.pid; sleep 30; echo 1 2 3", "{arg}"], env: ["D=`+dir+`"]}]
n: [1]
samples: min: 3
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary(t), "run", p, "-o", out)
	cmd.Dir = dir
	cmd.Env = sharedCache()
	stderr := &fulltest.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := pidIn(t, filepath.Join(dir, "kill.pid"), 30*time.Second)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !gone(pid, 5*time.Second) {
		t.Errorf("descendant %d still runs 5 s after spawnbench was SIGKILLed", pid)
	}
}

// markedProcesses lists the processes whose command line holds the
// argument marker, read from outside the run (/proc/*/cmdline).
func markedProcesses(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && running(pid) && strings.Contains(string(b), "\x00"+marker+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ordinaryUser makes a directory that the user nobody may write, with a
// copy of the spawnbench binary nobody may run (go test's directories
// are their user's only), and returns both; it skips the test where this
// process cannot run another user's. The directory is sticky, as /tmp
// is: nobody's build cache in it is nobody's own (engine/buildcache
// refuses one another user could change).
func ordinaryUser(t *testing.T) (sb, dir string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skipf("running as uid %d, not root: cannot run spawnbench as another user (every test here runs as this ordinary user already)", os.Getuid())
	}
	dir, err := os.MkdirTemp("", "spawnbench-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copied := filepath.Join(dir, "spawnbench")
	if err := fulltest.CopyExecutable(binary(t), copied); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return copied, dir
}

// TestOrdinaryUserHoldsItsTrees: issue 33, item 1. spawnbench run as an
// ordinary user (nobody: no cgroup can be made) holds a benchmark's
// env-clearing, double-forked orphan as tightly as root does: none is
// left after a completed run, nor after a SIGKILL of spawnbench in the
// middle of one. The orphans are found from outside by a sleep duration
// no other process has.
func TestOrdinaryUserHoldsItsTrees(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	sb, dir := ordinaryUser(t)
	marker := fmt.Sprintf("%d.%03d", 600+os.Getpid()%300, time.Now().UnixNano()%1000)
	spec := func(name string, processes int) string {
		p := filepath.Join(dir, name+".cue")
		body := fmt.Sprintf(`name: %q
environments: [{name: "orphaning", kind: "command", run: ["/bin/sh", "-c", "(env -i setsid sleep %s </dev/null >/dev/null 2>&1 &); sleep 0.3; echo 1 2 3", "{arg}"]}]
n: [1]
samples: {min: %d, processes: 1}
schedule: settle: cap: "0s" // as writeSpec's: no waiting out the tests' own load
`, name, marker, processes)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(sb, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "HOME="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return cmd
	}
	defer func() {
		for _, pid := range markedProcesses(marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()

	t.Run("completed", func(t *testing.T) {
		out := filepath.Join(dir, "done")
		cmd := command("run", spec("done", 3), "-o", out)
		stderr := &fulltest.LockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		kind, detail := containmentDetail(t, out)
		if kind != "guardian" || !strings.Contains(detail, "a guardian process for each tree, its child subreaper") || !strings.Contains(detail, "no cgroup v2 to be made") ||
			!strings.Contains(stderr.String(), "process trees held by: guardian (a guardian process for each tree") {
			t.Errorf("containment %q (%s); stderr %s", kind, detail, stderr.String())
		}
		if left := markedProcesses(marker); len(left) > 0 {
			t.Errorf("orphans %v of the benchmark still run after the run ended", left)
		}
	})
	t.Run("SIGKILLed", func(t *testing.T) {
		cmd := command("run", spec("killed", 50), "-o", filepath.Join(dir, "killed"))
		stderr := &fulltest.LockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); len(markedProcesses(marker)) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no orphan started in 60 s: %s", stderr.String())
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		var left []int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if left = markedProcesses(marker); len(left) == 0 {
				return
			}
		}
		t.Errorf("orphans %v of the benchmark still run 10 s after spawnbench was SIGKILLed", left)
	})
}

// TestNothingMeasuredFails: issue 20, items 7 and 8. A run in which every
// environment is skipped fails (2 when the cause is the spec), names each
// real cause, and does not say "results in"; a hanging build step is
// killed at limits.build_timeout.
func TestNothingMeasuredFails(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\necho 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, envs, limits string
		code               int
		want               []string
	}{
		{"missing command", `{name: "a", kind: "command", run: ["no-such-runtime-x", "{arg}"]}`, "", 2,
			[]string{`a: toolchain missing: "no-such-runtime-x" not found on PATH`}},
		{"not executable", `{name: "b", kind: "command", run: ["` + plain + `", "{arg}"]}`, "", 2,
			[]string{`b: toolchain missing: "` + plain + `" is not executable`}},
		{"a directory", `{name: "c", kind: "command", run: ["` + dir + `", "{arg}"]}`, "", 2,
			[]string{`c: toolchain missing: "` + dir + `" is a directory`}},
		{"missing cc", `{name: "d", kind: "native", cc: "no-such-cc-x"}`, "", 2,
			[]string{`d: toolchain missing: C compiler "no-such-cc-x" not found on PATH`}},
		{"failing build", `{name: "e", kind: "command", build: [["false"]], run: ["echo", "1 2 3"]}`, "", 1,
			[]string{"e: build failed: "}},
		{"hanging build", `{name: "f", kind: "command", build: [["sleep", "60"]], run: ["echo", "1 2 3"]}`, `limits: build_timeout: "1s"`, 1,
			[]string{"f: build failed: ", "still running after 1s, killed", "limits.build_timeout"}},
		{"two causes", `{name: "g", kind: "command", run: ["no-such-runtime-x", "{arg}"]}, {name: "h", kind: "command", run: ["` + dir + `", "{arg}"]}`, "", 2,
			[]string{"g: toolchain missing: ", "h: toolchain missing: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeSpec(t, dir, "environments: ["+tc.envs+"]\nn: [1]\nsamples: min: 1\n"+tc.limits+"\n")
			_, stderr, code := runCLI(t, "run", p, "-o", filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-")))
			if code != tc.code || !strings.Contains(stderr, "nothing was measured") || strings.Contains(stderr, "results in") {
				t.Fatalf("exit %d, want %d, nothing measured and no results; stderr %s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
		})
	}
}

// TestUsageErrorsExit2: issue 20, item 13. `wasmtime` without a module
// and `plan --shards -1` are usage errors, exit 2 with what to give.
func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	p := writeSpec(t, dir, "environments: [{name: \"native\", kind: \"native\"}]\nn: [1]\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"wasmtime"}, "give the module to run"},
		{[]string{"plan", "--shards", "-1", p}, "give a shard count >= 1"},
	} {
		_, stderr, code := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
