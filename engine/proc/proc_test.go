package proc

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitCodeAndOutput(t *testing.T) {
	out, err := Run(context.Background(), Command{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 7"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 7 || string(out.Stdout) != "out\n" || string(out.Stderr) != "err\n" || out.TimedOut || out.Wall <= 0 {
		t.Errorf("outcome = %+v", out)
	}
}

func TestSignalIsNamed(t *testing.T) {
	out, err := Run(context.Background(), Command{Argv: []string{"sh", "-c", "kill -ABRT $$"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Signal != "aborted" || out.ExitCode != -1 {
		t.Errorf("signal %q exit %d", out.Signal, out.ExitCode)
	}
}

// TestTimeoutKillsTheWholeGroup: a runtime's own children (Node.js and
// Chromium start some) must not outlive a timed-out repetition.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := Run(ctx, Command{Argv: []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || time.Since(start) > 5*time.Second {
		t.Fatalf("timed out %v after %s", out.TimedOut, time.Since(start))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(3 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		// Gone, or a zombie waiting for init to reap it.
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d of the timed-out process still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPinning(t *testing.T) {
	out, err := Run(context.Background(), Command{Argv: []string{"grep", "Cpus_allowed_list", "/proc/self/status"}, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out.Stdout)); len(f) != 2 || f[1] != "0" {
		t.Errorf("pinned process sees %q", out.Stdout)
	}
	// The pinning does not leak into spawnbench itself.
	out, _ = Run(context.Background(), Command{Argv: []string{"grep", "Cpus_allowed_list", "/proc/self/status"}})
	self, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(self), "\n") {
		if strings.HasPrefix(line, "Cpus_allowed_list") && strings.TrimSpace(string(out.Stdout)) != strings.TrimSpace(line) {
			t.Errorf("unpinned process sees %q, spawnbench %q", out.Stdout, line)
		}
	}
}

func TestMissingProgram(t *testing.T) {
	_, err := Run(context.Background(), Command{Argv: []string{"/no/such/program"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/program") {
		t.Errorf("err = %v", err)
	}
}
