package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// TestACPUHogHalfwayIsDrift starts eight CPU hogs on the one CPU a small
// native run is pinned to, once half of its processes are recorded. A
// cell whose processes the hogs clearly moved (a process started after
// them slower than one that ended before them in 85% of such pairs) must
// be flagged drifted and unstable, and say so. Pinning the hogs beside
// the benchmark makes them move it whatever else the machine runs, so
// the test does not depend on an idle machine; where other work slowed
// the earlier processes as much, it skips. They delay a first spawn
// by a time slice, a few ms, in most processes, not in all (the new
// thread sometimes gets the CPU first): on an idle machine two hogs
// delayed 7–11 of 20 beyond every earlier process, four 16, eight
// 18–20; on a busy one some earlier processes are slow already, hence
// pairs, not the slowest earlier process.
func TestACPUHogHalfwayIsDrift(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "hog"
environments: [{name: "native", kind: "native"}]
modes: ["sequential"]
n: [1]
samples: {min: 40, processes: 40, pause: "20ms"}
pinning: cpus: [0]
`)
	out := filepath.Join(dir, "out")
	cmd, stderr := startRun(t, dir, p, out)
	const total = 40
	journal := filepath.Join(out, results.JournalFile)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(journal); strings.Count(string(b), `"k":"process"`) >= total/2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("half the processes were not recorded in 5 minutes: %s", stderr.String())
		}
	}
	hogsFrom := time.Now()
	for range 8 {
		h := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
		h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := h.Start(); err != nil {
			t.Fatalf("starting a CPU hog: %v", err)
		}
		t.Cleanup(func() { h.Process.Kill(); h.Wait() })
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	stdout, errText, code := runCLI(t, "report", out, "--format", "json")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errText)
	}
	var rep struct {
		Cells []struct {
			Mode  string `json:"mode"`
			N     int32  `json:"n"`
			Last  int    `json:"last"`
			Stats *struct {
				Drifted bool `json:"drifted"`
			} `json:"stats"`
			Judgement struct {
				Verdict string `json:"verdict"`
				Drifted bool   `json:"drifted"`
			} `json:"judgement"`
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
		// Before: processes that ended before the hogs started; after:
		// those that started after. The one running at that moment is
		// neither.
		var before, after []int64
		for _, r := range set.Runs {
			if r.Mode != c.Mode || r.N != c.N || r.Warmup || r.TypicalSpawnNS == nil {
				continue
			}
			switch end := r.StartedAt.Add(time.Duration(r.WallNS)); {
			case end.Before(hogsFrom):
				before = append(before, *r.TypicalSpawnNS)
			case r.StartedAt.After(hogsFrom):
				after = append(after, *r.TypicalSpawnNS)
			}
		}
		share := aboveShare(after, before)
		// A share of 0.85 of the (after, before) pairs in order, with 16
		// or more processes a side, is a Mann–Whitney z above 3.5 (p <
		// 0.001) for these sets, and the run's start-ordered halves are
		// these sets but for the one process running when the hogs came.
		if len(before) < 16 || len(after) < 16 || share < 0.85 {
			t.Logf("%s n=%d: %d processes before the hogs, %d after, %.2f of pairs in order: not clearly moved; verdict %s (drifted: %v)",
				c.Mode, c.N, len(before), len(after), share, c.Judgement.Verdict, c.Judgement.Drifted)
			continue
		}
		moved++
		t.Logf("%s n=%d: moved by the hogs (%d before, %d after, %.2f of pairs in order); verdict %s (drifted: %v)",
			c.Mode, c.N, len(before), len(after), share, c.Judgement.Verdict, c.Judgement.Drifted)
		if !c.Stats.Drifted || c.Judgement.Verdict != "unstable" || !c.Judgement.Drifted {
			t.Errorf("%s n=%d: the processes after the hogs clearly slower than those before, but drifted %v, verdict %q (judgement drifted: %v)",
				c.Mode, c.N, c.Stats.Drifted, c.Judgement.Verdict, c.Judgement.Drifted)
		}
	}
	if moved == 0 {
		// Other work on the benchmark's CPU slowed the earlier processes
		// as much as the hogs did the later: nothing to judge by.
		t.Skip("the hogs clearly moved no cell: the machine was too busy beside the benchmark's CPU to tell them apart")
	}
}

// aboveShare is the share of pairs (b, a) with b above a, ties counting
// half: the Mann–Whitney U of b over len(a)·len(b).
func aboveShare(b, a []int64) float64 {
	u := 0.0
	for _, y := range b {
		for _, x := range a {
			switch {
			case y > x:
				u++
			case y == x:
				u += 0.5
			}
		}
	}
	return u / float64(len(a)*len(b))
}
