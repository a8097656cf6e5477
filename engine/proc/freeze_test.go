package proc

import (
	"context"
	"os"
	"os/exec"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFreezeStopsTheWholeTree: a tree of two busy loops (a shell and its
// child) uses no CPU while frozen and runs again once thawed, whether the
// tree is held by a cgroup or by a guardian.
func TestFreezeStopsTheWholeTree(t *testing.T) {
	if os.Getenv(guardianTestVar) == "" {
		t.Run("guardian", func(t *testing.T) {
			fulltest.Only(t, "runs the test again under guardians, as TestUnderGuardians runs the tree tests")
			cmd := exec.Command(os.Args[0], "-test.run=^TestFreezeStopsTheWholeTree$", "-test.count=1")
			cmd.Env = append(os.Environ(), guardianTestVar+"=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("under guardians: %v\n%s", err, out)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Command{Argv: []string{"/bin/sh", "-c", "(while :; do :; done) & while :; do :; done"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	kind, _ := Containment()
	time.Sleep(200 * time.Millisecond) // the child is started
	if err := s.Freeze(); err != nil {
		t.Fatalf("freeze (%s): %v", kind, err)
	}
	if !s.Frozen() {
		t.Errorf("frozen (%s): Frozen says not", kind)
	}
	before := treeTicks(t, s.Pid)
	time.Sleep(300 * time.Millisecond)
	if after := treeTicks(t, s.Pid); after != before {
		t.Errorf("frozen (%s): the tree used %d ticks of CPU in 300 ms, want none", kind, after-before)
	}
	if err := s.Thaw(); err != nil {
		t.Fatalf("thaw (%s): %v", kind, err)
	}
	before = treeTicks(t, s.Pid)
	time.Sleep(300 * time.Millisecond)
	if after := treeTicks(t, s.Pid); after <= before {
		t.Errorf("thawed (%s): the tree used no CPU in 300 ms", kind)
	}
	// A frozen tree still ends when stopped.
	if err := s.Freeze(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stop(); err != nil {
		t.Fatalf("stop a frozen tree (%s): %v", kind, err)
	}
}

// treeTicks sums utime and stime of the processes in group pgid.
func treeTicks(t *testing.T, pgid int) int64 {
	t.Helper()
	stats, err := readStats()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for pid := range stats {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(data), ')')
		f := strings.Fields(string(data[i+2:]))
		// f[0] is field 3 (state); pgrp is field 5, utime 14, stime 15.
		if len(f) < 13 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += u + st
	}
	return sum
}

// TestSettleSeesABusyLoop: beside a busy loop that takes a whole CPU, a
// settle step with a bar of a tenth of a CPU waits to its cap and reads
// about one CPU of other work.
func TestSettleSeesABusyLoop(t *testing.T) {
	hog := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hog.Process.Kill(); _ = hog.Wait() }()
	time.Sleep(100 * time.Millisecond)
	s, ok := Settle(context.Background(), SettleRule{BelowCPUs: 0.1, Cap: 300 * time.Millisecond})
	if !ok {
		t.Skip("this machine's CPU time cannot be read")
	}
	if s.Quiet || s.OthersCPUs < 0.5 || s.Waited < 250*time.Millisecond {
		t.Errorf("beside a busy loop: quiet %v, others %.2f CPUs, waited %s; want not quiet, about 1 CPU, the 300 ms cap", s.Quiet, s.OthersCPUs, s.Waited)
	}
}

// TestSettleWaitsAtLeastThePause holds the pause and the settling as one
// wait: a pause longer than the window is waited in full, even where the
// machine is quiet at once.
func TestSettleWaitsAtLeastThePause(t *testing.T) {
	s, ok := Settle(context.Background(), SettleRule{Window: 20 * time.Millisecond, BelowCPUs: 1e6, Cap: time.Second, AtLeast: 120 * time.Millisecond})
	if !ok {
		t.Skip("this machine's CPU time cannot be read")
	}
	if !s.Quiet || s.Waited < 120*time.Millisecond {
		t.Errorf("quiet %v after %s; want quiet (no bar can be missed) after at least the 120 ms pause", s.Quiet, s.Waited)
	}
}
