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
	if err := os.Mkdir(filepath.Join(os.TempDir(), ProfilePrefix("firefox")+"test"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _ = Run(context.Background(), Command{Argv: []string{"sh", "-c", `sleep 1000 & echo $! > $D/a.pid; sleep 1000`}, Env: []string{"D=" + dir}})
}

// TestSIGKILLedSpawnbench: issue 20, item 2. A spawnbench killed by
// SIGKILL leaves no process of its trees running and no browser profile.
func TestSIGKILLedSpawnbench(t *testing.T) {
	if kind, detail := Containment(); kind != ContainCgroup {
		t.Skipf("no cgroup on this machine (%s): only the cgroup's keeper outlives a SIGKILL", detail)
	}
	dir := t.TempDir()
	tmp := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperSpawnbench$")
	helper.Env = append(os.Environ(), helperVar+"="+dir, "TMPDIR="+tmp)
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
