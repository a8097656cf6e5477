package run

import (
	"fmt"
	"regexp"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"
)

// TestETAScalesTheExpectedTime: the ETA is the rest's expected time at
// the speed so far, counted down while a process runs, but never below
// what the processes after the running one take.
func TestETAScalesTheExpectedTime(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	// Four processes expected 1s, 1s, 2s and 4s; the first two took 4s,
	// twice as long as expected.
	p := &tally{expected: []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second}, totalExp: 8 * time.Second,
		done: 2, doneExp: 2 * time.Second, start: t0, lastStep: t0.Add(4 * time.Second)}
	p.etaAt = p.scaled(p.totalExp - p.doneExp)
	if p.etaAt != 12*time.Second {
		t.Errorf("ETA after two processes %s, want the 6s left at half speed, 12s", p.etaAt)
	}
	if got := p.eta(p.lastStep.Add(3 * time.Second)); got != 9*time.Second {
		t.Errorf("3s later: ETA %s, want 9s", got)
	}
	if got := p.eta(p.lastStep.Add(time.Minute)); got != 8*time.Second {
		t.Errorf("a minute later: ETA %s, want the last process's 4s at half speed, 8s", got)
	}
	p.done = 4
	if got := p.eta(p.lastStep); got != 0 {
		t.Errorf("all done: ETA %s", got)
	}
}

// TestProgressLines: without a terminal, a line at each tenth (here each
// quarter: four processes) and at the interval, the last one complete.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	var buf fulltest.LockedBuffer
	p := newProgress(&buf, []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}, 1, 10*time.Millisecond)
	for done := range 4 {
		// Wait for an interval's line at this count (however slow a busy
		// machine is to run the ticker), then finish a process.
		want := fmt.Sprintf("progress: %d/4 processes", done)
		for deadline := time.Now().Add(time.Minute); !strings.Contains(buf.String(), want) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		p.add(1)
	}
	p.finish()
	lines := regexp.MustCompile(`(?m)^progress: (\d)/4 processes \(\d+%\), 0/1 cells finished, elapsed \S+, ETA \S+$`).FindAllStringSubmatch(buf.String(), -1)
	if len(lines) < 5 || lines[len(lines)-1][1] != "4" || !strings.HasSuffix(lines[len(lines)-1][0], "ETA 0s") {
		t.Errorf("want a line per quarter and more at 10 ms, the last one 4/4 with ETA 0s:\n%s", buf.String())
	}
	quarters := map[string]bool{}
	for _, l := range lines {
		quarters[l[1]] = true
	}
	if len(quarters) != 5 {
		t.Errorf("lines at %v processes done, want 0 to 4:\n%s", quarters, buf.String())
	}
}
