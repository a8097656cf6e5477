package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// burnLoop is a shell loop that keeps one CPU busy for about 0.1 s.
const burnLoop = `i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done`

// TestTreeCost: the CPU time, peak memory and context switches of the
// whole tree are recorded, orphans and threads included, and the
// machine's noise over the span is plausible.
func TestTreeCost(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The burners touch these when done, so the tree is ended after the
	// burn however slow a busy machine makes it.
	orphanBurnt, stoppedBurnt := filepath.Join(t.TempDir(), "orphan-burnt"), filepath.Join(t.TempDir(), "stopped-burnt")
	for _, tc := range []struct {
		name    string
		argv    []string
		env     []string
		minCPU  time.Duration // user + sys at least
		minRSS  int64
		stopped bool // ended by Stop after a while, as a browser is
	}{
		{
			name:   "threads of a real binary",
			argv:   []string{self},
			env:    burnThreadsEnv(t),
			minCPU: 100 * time.Millisecond, minRSS: 1 << 20,
		},
		{
			name:   "a child the main process reaped",
			argv:   []string{"sh", "-c", "(" + burnLoop + ") & wait"},
			minCPU: 30 * time.Millisecond, minRSS: 1 << 20,
		},
		{
			// The burner is orphaned, adopted by spawnbench, killed when
			// main ends and reaped by spawnbench: only its rusage from that
			// reaping can account for the CPU time.
			name:   "an orphan spawnbench reaped",
			argv:   []string{"sh", "-c", "sh -c '(" + burnLoop + "; touch " + orphanBurnt + "; sleep 1000) &'; until [ -e " + orphanBurnt + " ]; do sleep 0.01; done"},
			minCPU: 30 * time.Millisecond, minRSS: 1 << 20,
		},
		{
			name:   "a started tree stopped",
			argv:   []string{"sh", "-c", "(" + burnLoop + "; touch " + stoppedBurnt + "; sleep 1000) & sleep 1000"},
			minCPU: 30 * time.Millisecond, minRSS: 1 << 20,
			stopped: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(context.Background(), Command{Argv: tc.argv, Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			var out Outcome
			if tc.stopped {
				for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
					if _, err := os.Stat(stoppedBurnt); err == nil {
						break
					}
					if time.Now().After(end) {
						s.Stop()
						t.Fatal("the burner did not finish in a minute")
					}
				}
				out, err = s.Stop()
			} else {
				out, err = s.Wait()
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, p := range map[string]*int64{"user_ns": out.UserNS, "sys_ns": out.SysNS, "max_rss_bytes": out.MaxRSSBytes,
				"ctx_switches_involuntary": out.InvoluntaryCtxSwitches, "others_cpu_ns": out.OthersCPUNS, "steal_ns": out.StealNS} {
				// others_cpu_ns alone may be negative: whole ticks
				// minus exact CPU times.
				if p == nil || (*p < 0 && name != "others_cpu_ns") {
					t.Fatalf("%s = %v, want a count >= 0 on Linux", name, p)
				}
			}
			cpu := time.Duration(*out.UserNS + *out.SysNS)
			t.Logf("wall %s user %s sys %s max rss %d KiB, %d involuntary switches, others %s, steal %s",
				out.Wall, time.Duration(*out.UserNS), time.Duration(*out.SysNS), *out.MaxRSSBytes>>10,
				*out.InvoluntaryCtxSwitches, time.Duration(*out.OthersCPUNS), time.Duration(*out.StealNS))
			if *out.UserNS <= 0 || cpu < tc.minCPU {
				t.Errorf("user %d ns, user+sys %s; want user > 0 and user+sys >= %s", *out.UserNS, cpu, tc.minCPU)
			}
			if *out.MaxRSSBytes < tc.minRSS {
				t.Errorf("max rss %d bytes, want >= %d", *out.MaxRSSBytes, tc.minRSS)
			}
			// The tree cannot have used more CPU than the machine had.
			if limit := time.Duration(2 * int64(out.Wall) * int64(len(cpus(t)))); cpu > limit {
				t.Errorf("tree used %s of CPU in %s of wall time", cpu, out.Wall)
			}
		})
	}
}

func cpus(t *testing.T) []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		t.Skip("no CPU list")
	}
	var list []int
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, _ := strings.Cut(r, "-")
		a, _ := strconv.Atoi(lo)
		z := a
		if hi != "" {
			z, _ = strconv.Atoi(hi)
		}
		for c := a; c <= z; c++ {
			list = append(list, c)
		}
	}
	return list
}

// TestOOMKilled: a process the kernel's OOM killer ends is OOMKilled; one
// killed by another SIGKILL, or that exits cleanly, is not. The OOM case
// needs a memory cgroup spawnbench may create (root, cgroup v1 or v2).
func TestOOMKilled(t *testing.T) {
	cg := memoryCgroup(t, 64<<20)
	for _, tc := range []struct {
		name   string
		script string
		oom    bool
	}{
		// awk doubles a string until the cgroup's limit is hit.
		{"OOM-killed", `echo $$ > ` + filepath.Join(cg, "cgroup.procs") + `; exec awk 'BEGIN { s = "x"; while (1) s = s s }'`, true},
		{"OOM-killed under a shell", `echo $$ > ` + filepath.Join(cg, "cgroup.procs") + `; awk 'BEGIN { s = "x"; while (1) s = s s }'; exit $?`, true},
		{"SIGKILL from elsewhere", `kill -KILL $$`, false},
		{"clean exit", `exit 0`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, err := Run(ctx, Command{Argv: []string{"sh", "-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			if out.OOMKilled != tc.oom || out.TimedOut {
				t.Errorf("OOM-killed %v (exit %d, signal %q, timed out %v, stderr %q), want %v",
					out.OOMKilled, out.ExitCode, out.Signal, out.TimedOut, out.Stderr, tc.oom)
			}
		})
	}
}

// memoryCgroup makes a memory cgroup limited to limit bytes, removed at
// the test's end, or skips the test.
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	for _, c := range []struct{ parent, limitFile string }{
		{"/sys/fs/cgroup/memory", "memory.limit_in_bytes"}, // v1
		{"/sys/fs/cgroup", "memory.max"},                   // v2 with the memory controller
	} {
		if _, err := os.Stat(filepath.Join(c.parent, c.limitFile)); err != nil && c.limitFile == "memory.max" {
			if _, err := os.Stat(filepath.Join(c.parent, "cgroup.subtree_control")); err != nil {
				continue
			}
		}
		dir := filepath.Join(c.parent, fmt.Sprintf("spawnbench-proc-test-%d", os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, c.limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			os.Remove(dir)
			continue
		}
		t.Cleanup(func() {
			// The cgroup can only go once its killed processes are gone.
			for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				err := os.Remove(dir)
				if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(end) {
					return
				}
			}
		})
		return dir
	}
	t.Skip("cannot make a memory cgroup with a limit here (needs root and a memory controller)")
	return ""
}
