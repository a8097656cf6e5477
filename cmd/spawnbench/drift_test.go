package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// TestACPUHogHalfwayIsDrift starts CPU hogs once half of a small run's
// processes are recorded: the cells whose processes the hogs clearly
// moved (every process of the run's later half beyond every one of its
// earlier half) must be flagged drifted and unstable, and say so.
func TestACPUHogHalfwayIsDrift(t *testing.T) {
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "hog"
environments: [{name: "native", kind: "native"}]
n: [1, 10]
samples: {min: 24, processes: 24, pause: "20ms"}
`)
	out := filepath.Join(dir, "out")
	cmd, _ := startRun(t, dir, p, out)
	const total = 48
	journal := filepath.Join(out, results.JournalFile)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(journal); strings.Count(string(b), `"k":"process"`) >= total/2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("half the processes were not recorded in 5 minutes")
		}
	}
	var hogs []*exec.Cmd
	for range runtime.NumCPU() {
		h := exec.Command("sh", "-c", "while :; do :; done")
		h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		hogs = append(hogs, h)
	}
	err := cmd.Wait()
	for _, h := range hogs {
		h.Process.Kill()
		h.Wait()
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, dir, "report", out, "--format", "json")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	var rep struct {
		Cells []struct {
			Environment string `json:"environment"`
			Mode        string `json:"mode"`
			N           int32  `json:"n"`
			Last        int    `json:"last"`
			Stats       *struct {
				Drifted bool `json:"drifted"`
			} `json:"stats"`
			Noise struct {
				Verdict string `json:"verdict"`
				Reason  string `json:"reason"`
			} `json:"noise"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, c := range rep.Cells {
		if c.Last != 0 || c.Stats == nil {
			continue
		}
		var runs []results.ProcessRun
		for _, r := range set.Runs {
			if r.Environment == c.Environment && r.Mode == c.Mode && r.N == c.N && !r.Warmup && r.TypicalSpawnNS != nil {
				runs = append(runs, r)
			}
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].StartedAt.Before(runs[j].StartedAt) })
		half := len(runs) / 2
		lo, hi := runs[:half], runs[half:]
		if !(separated(lo, hi) || separated(hi, lo)) {
			t.Logf("%s %s n=%d: the hogs did not clearly move its processes; verdict %s", c.Environment, c.Mode, c.N, c.Noise.Verdict)
			continue
		}
		moved++
		t.Logf("%s %s n=%d: moved by the hogs; verdict %s: %s", c.Environment, c.Mode, c.N, c.Noise.Verdict, c.Noise.Reason)
		if !c.Stats.Drifted || c.Noise.Verdict != "unstable" || !strings.Contains(c.Noise.Reason, "drifted") {
			t.Errorf("%s %s n=%d: every later process beyond every earlier one, but drifted %v, verdict %q (%s)",
				c.Environment, c.Mode, c.N, c.Stats.Drifted, c.Noise.Verdict, c.Noise.Reason)
		}
	}
	if moved == 0 {
		t.Fatal("the hogs clearly moved no cell: the test checked nothing")
	}
}

// separated is true when every process of a is faster than every one of b.
func separated(a, b []results.ProcessRun) bool {
	for _, x := range a {
		for _, y := range b {
			if *x.TypicalSpawnNS >= *y.TypicalSpawnNS {
				return false
			}
		}
	}
	return true
}
