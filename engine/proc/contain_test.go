package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/internal/fulltest"
)

// helperVar makes the test binary a spawnbench that runs one benchmark
// tree (see TestHelperSpawnbench) for TestSIGKILLedSpawnbench to kill.
const helperVar = "SPAWNBENCH_TEST_HELPER_DIR"

// TestHelperSpawnbench is not a test: run by TestSIGKILLedSpawnbench, it
// starts a tree with two orphans that write their pids, one of them
// double-forked with a cleared environment before any walk could see it,
// leaves a directory for its keeper's OnOwnerGone hook to remove (as
// engine/browser has it remove browser profiles), and waits to be killed.
func TestHelperSpawnbench(t *testing.T) {
	dir := os.Getenv(helperVar)
	if dir == "" {
		t.Skip("only run by TestSIGKILLedSpawnbench")
	}
	if err := os.Mkdir(filepath.Join(os.TempDir(), leftoverPrefix+Owner()+"-test"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _ = Run(context.Background(), Command{Argv: []string{"sh", "-c", `sleep 1000 & echo $! > $D/a.pid; ` +
		`(env -i D=$D setsid sh -c 'echo $$ > $D/b.pid.tmp; mv $D/b.pid.tmp $D/b.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &); sleep 1000`}, Env: []string{"D=" + dir}})
}

// TestSIGKILLedSpawnbench: issue 20, item 2, and issue 33, item 1. A
// spawnbench killed by SIGKILL leaves no process of its trees running,
// an env-clearing double-forked orphan included, and its keeper runs the
// OnOwnerGone hooks (which remove browser profiles), in a cgroup or under
// guardians.
func TestSIGKILLedSpawnbench(t *testing.T) {
	for _, mode := range []string{ContainCgroup, ContainGuardian} {
		t.Run(mode, func(t *testing.T) {
			if kind, detail := Containment(); mode == ContainCgroup && kind != ContainCgroup {
				t.Skipf("no cgroup on this machine (%s)", detail)
			}
			sigkillHelper(t, mode == ContainGuardian)
		})
	}
}

func sigkillHelper(t *testing.T, guardian bool) {
	dir := t.TempDir()
	tmp := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperSpawnbench$")
	helper.Env = append(os.Environ(), helperVar+"="+dir, "TMPDIR="+tmp)
	if guardian {
		helper.Env = append(helper.Env, guardianTestVar+"=1")
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for deadline := time.Now().Add(20 * time.Second); len(pids) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			helper.Process.Kill()
			helper.Wait()
			t.Fatal("the helper wrote no pid")
		}
		a, errA := os.ReadFile(filepath.Join(dir, "a.pid"))
		_, errB := os.Stat(filepath.Join(dir, "b.pid"))
		if errA == nil && strings.HasSuffix(string(a), "\n") && errB == nil {
			pids = pidsIn(t, dir)
		}
	}
	for _, pid := range pids {
		defer syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("descendant %d still runs after its spawnbench was SIGKILLed", pid)
		}
	}
	for {
		left, _ := filepath.Glob(filepath.Join(tmp, leftoverPrefix+"*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("left for the OnOwnerGone hook, and left: %v", left)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLeftoversOfGoneSpawnbenchKilled: what a spawnbench that is gone
// left running (its keeper killed with it) is killed by the next one;
// the processes of a living spawnbench are not.
func TestLeftoversOfGoneSpawnbenchKilled(t *testing.T) {
	start := func(owner string) *exec.Cmd {
		cmd := exec.Command("sleep", "1000")
		cmd.Env = append(os.Environ(), treeVar+"="+owner+".1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	// pid 1 did not start at time 1: that spawnbench is gone.
	left, living := start("1-1"), start(Owner())
	killTokens(OwnerGone)
	if err := left.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("a gone spawnbench's process: %v, want killed", err)
	}
	if !alive(living.Process.Pid) {
		t.Error("a living spawnbench's process was killed")
	}
}

// TestStepLimit: issue 20, item 8. A build step or probe run under
// WithStepLimit is killed at the limit, and the error names the setting.
func TestStepLimit(t *testing.T) {
	ctx := WithStepLimit(context.Background(), 300*time.Millisecond, "limits.build_timeout", nil)
	begun := time.Now()
	_, err := Output(ctx, "", "sh", "-c", "echo compiling; sleep 30")
	if err == nil || !strings.Contains(err.Error(), "still running after 300ms, killed") || !strings.Contains(err.Error(), "limits.build_timeout") || !strings.Contains(err.Error(), "compiling") {
		t.Fatalf("err %v", err)
	}
	if took := time.Since(begun); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	if out, err := Output(ctx, "", "echo", "quick"); err != nil || out != "quick\n" {
		t.Errorf("a step within the limit: %q, %v", out, err)
	}
}

// treeTests are the tests of what holds a tree, run again by
// TestUnderGuardians.
const treeTests = "^(TestGuardiansAreReused|TestOutcome|TestTreeEnds|TestStrangersSurvive|TestInterruptStopsWithinASecond|TestPinning|TestMissingProgram|TestOutputBounds|TestOutput|TestSIGKILLedSpawnbench|TestTreeCost)$"

// TestUnderGuardians: issue 33, item 1. The tests of what holds a tree
// pass where trees are held by guardians: in a test binary run as an
// ordinary user (nobody), which can make no cgroup, and, where this one
// holds trees in cgroups, in one made to use guardians.
func TestUnderGuardians(t *testing.T) {
	if os.Getenv(guardianTestVar) != "" || os.Getenv(helperVar) != "" {
		t.Skip("run by TestUnderGuardians itself")
	}
	fulltest.Only(t, "runs the tree tests again, as another user and under guardians")
	run := func(t *testing.T, cmd *exec.Cmd) string {
		t.Helper()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestTreeEnds") || !strings.Contains(string(out), "--- PASS: TestSIGKILLedSpawnbench/guardian") {
			t.Fatalf("the tree tests did not run:\n%s", out)
		}
		return string(out)
	}
	// The two runs are processes of their own, each holding its own trees
	// (the tests count and kill the processes they started, by pid), and
	// mostly wait: they run side by side.
	t.Run("forced", func(t *testing.T) {
		t.Parallel()
		if kind, _ := Containment(); kind != ContainCgroup {
			t.Skipf("this test binary holds its trees by %s already", kind)
		}
		cmd := exec.Command(os.Args[0], "-test.v", "-test.count=1", "-test.run="+treeTests)
		cmd.Env = append(os.Environ(), guardianTestVar+"=1")
		run(t, cmd)
	})
	t.Run("as nobody", func(t *testing.T) {
		t.Parallel()
		bin := asNobody(t, os.Args[0])
		cmd := exec.Command(bin, "-test.v", "-test.count=1", "-test.run="+treeTests)
		cmd.Env = append(os.Environ(), "TMPDIR=/tmp", "HOME=/tmp")
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		if out := run(t, cmd); !strings.Contains(out, "no cgroup v2 to be made") {
			t.Errorf("as nobody, trees were not held by guardians:\n%s", out)
		}
	})
}

// nobody is the uid and gid of the ordinary user the tests run as.
const nobody = 65534

// asNobody copies the binary bin where nobody may run it (go test builds
// into a directory only its user may enter) and returns the copy's path;
// it skips the test where this process cannot switch users.
func asNobody(t *testing.T, bin string) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skipf("running as uid %d, not root: cannot run a process as another user (and every test here runs as this ordinary user already)", os.Getuid())
	}
	dir, err := os.MkdirTemp("", "spawnbench-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copied := filepath.Join(dir, filepath.Base(bin))
	if err := fulltest.CopyExecutable(bin, copied); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return copied
}

// TestGuardiansAreReused: trees one after another share one guardian, and
// two at once have one each; each tree's cost is its own.
func TestGuardiansAreReused(t *testing.T) {
	if kind, _ := Containment(); kind != ContainGuardian {
		t.Skipf("trees are held by %s here (TestUnderGuardians runs this under guardians)", kind)
	}
	idle := func() int {
		idleGuardians.Lock()
		defer idleGuardians.Unlock()
		return len(idleGuardians.list)
	}
	before := idle()
	for range 5 {
		if out, err := Run(context.Background(), Command{Argv: []string{"true"}}); err != nil || out.ExitCode != 0 || out.UserNS == nil {
			t.Fatalf("%+v, %v", out, err)
		}
	}
	if n := idle(); n != max(before, 1) {
		t.Errorf("%d idle guardians after 5 trees one after another, want %d", n, max(before, 1))
	}
	long, err := Start(context.Background(), Command{Argv: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	burn, err := Run(context.Background(), Command{Argv: []string{os.Args[0]}, Env: burnThreadsEnv(t)})
	if err != nil || burn.ExitCode != 0 {
		t.Fatalf("%+v, %v", burn, err)
	}
	stopped, err := long.Stop()
	if err != nil || stopped.Signal != "killed" {
		t.Fatalf("Stop: %+v, %v", stopped, err)
	}
	// The sleeping tree beside the burning one used next to no CPU.
	if *stopped.UserNS+*stopped.SysNS > *burn.UserNS/10 {
		t.Errorf("a sleeping tree was charged %d ns of CPU beside a tree of %d ns", *stopped.UserNS+*stopped.SysNS, *burn.UserNS)
	}
	if n := idle(); n < 2 {
		t.Errorf("%d idle guardians after two trees at once, want 2", n)
	}
}
