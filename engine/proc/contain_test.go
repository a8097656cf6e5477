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
)

// helperVar makes the test binary a spawnbench that runs one benchmark
// tree (see TestHelperSpawnbench) for TestSIGKILLedSpawnbench to kill.
const helperVar = "SPAWNBENCH_TEST_HELPER_DIR"

// TestHelperSpawnbench is not a test: run by TestSIGKILLedSpawnbench, it
// starts a tree whose orphan writes its pid, leaves a browser profile, and
// waits to be killed.
func TestHelperSpawnbench(t *testing.T) {
	dir := os.Getenv(helperVar)
	if dir == "" {
		t.Skip("only run by TestSIGKILLedSpawnbench")
	}
	forceSubreaper = os.Getenv(helperVar+"_SUBREAPER") != ""
	if err := os.Mkdir(filepath.Join(os.TempDir(), ProfilePrefix("firefox")+"test"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _ = Run(context.Background(), Command{Argv: []string{"sh", "-c", `sleep 1000 & echo $! > $D/a.pid; sleep 1000`}, Env: []string{"D=" + dir}})
}

// TestSIGKILLedSpawnbench: issue 20, item 2. A spawnbench killed by
// SIGKILL leaves no process of its trees running and no browser profile,
// in a cgroup or (for processes that keep their environment) without.
func TestSIGKILLedSpawnbench(t *testing.T) {
	for _, mode := range []string{ContainCgroup, ContainSubreaper} {
		t.Run(mode, func(t *testing.T) {
			if kind, detail := Containment(); mode == ContainCgroup && kind != ContainCgroup {
				t.Skipf("no cgroup on this machine (%s)", detail)
			}
			sigkillHelper(t, mode == ContainSubreaper)
		})
	}
}

func sigkillHelper(t *testing.T, subreaper bool) {
	dir := t.TempDir()
	tmp := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperSpawnbench$")
	helper.Env = append(os.Environ(), helperVar+"="+dir, "TMPDIR="+tmp)
	if subreaper {
		helper.Env = append(helper.Env, helperVar+"_SUBREAPER=1")
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
		if b, err := os.ReadFile(filepath.Join(dir, "a.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pids = pidsIn(t, dir)
		}
	}
	defer syscall.Kill(pids[0], syscall.SIGKILL)
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pids[0]) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pids[0]) {
		t.Errorf("descendant %d still runs after its spawnbench was SIGKILLed", pids[0])
	}
	for {
		left, _ := filepath.Glob(filepath.Join(tmp, "spawnbench-firefox-*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("browser profiles left: %v", left)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStaleProfilesRemoved: a profile of a spawnbench that is gone is
// removed, one of a living spawnbench is not.
func TestStaleProfilesRemoved(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	mine := filepath.Join(os.TempDir(), ProfilePrefix("chromium")+"x")
	// pid 1 did not start at time 1: this one's spawnbench is gone.
	stale := filepath.Join(os.TempDir(), "spawnbench-firefox-1-1-x")
	other := filepath.Join(os.TempDir(), "spawnbench-firefox-notmine")
	for _, d := range []string{mine, stale, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	RemoveStaleProfiles()
	for d, want := range map[string]bool{mine: true, stale: false, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
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
	killTokens(ownerGone)
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
