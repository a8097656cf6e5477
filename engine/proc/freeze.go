package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A tree kept between measured processes (a warm browser) must not run
// beside them: whatever it does between its pages (timers, garbage
// collection, a renderer it starts ahead) is load on the machine that
// the interleaved processes of other environments would pay for. Freeze
// stops every process of the tree where it stands; Thaw lets it go on.
// A frozen tree can still be killed: Stop, a context's end, the keeper
// and the guardians all work on it.

// freezeLimit bounds the wait for the kernel to report a cgroup frozen.
// A process in an uninterruptible wait (a write to a busy disk, such as
// a new browser's profile) freezes only when the wait ends, which may be
// seconds; a tree that does not freeze is stopped and started anew.
const freezeLimit = 10 * time.Second

// Freeze stops every process of the tree until Thaw: with cgroup.freeze
// where the tree has a cgroup of its own, else by SIGSTOP to every
// descendant of its guardian, repeated until no new one appears (a
// stopped process forks no more). It returns once the whole tree is
// stopped, or with an error saying what is not.
func (s *Started) Freeze() error {
	if s.box != nil {
		return s.box.setFrozen(true)
	}
	if s.guardPid == 0 {
		return errors.New("the tree has neither a cgroup nor a guardian")
	}
	stopped := map[int]uint64{}
	for round := 0; round < 10; round++ {
		fresh := 0
		for pid, start := range descendants(s.guardPid) {
			if stopped[pid] == start {
				continue
			}
			if err := syscall.Kill(pid, syscall.SIGSTOP); err == nil {
				stopped[pid] = start
				fresh++
			}
		}
		if fresh == 0 {
			return waitStopped(stopped)
		}
	}
	return fmt.Errorf("the tree of %d kept starting processes while it was stopped", s.Pid)
}

// waitStopped waits until every process signalled is stopped (or gone):
// a SIGSTOP is delivered when its process is next scheduled, which on a
// busy machine may be milliseconds after kill returned.
func waitStopped(signalled map[int]uint64) error {
	deadline := time.Now().Add(freezeLimit)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		running := 0
		for pid := range signalled {
			if st := state(pid); st != 0 && st != 'T' && st != 't' && st != 'Z' && st != 'X' {
				running++
			}
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes of the tree not stopped %s after SIGSTOP", running, freezeLimit)
		}
		time.Sleep(pause)
	}
}

// Thaw lets a frozen tree run again.
func (s *Started) Thaw() error {
	if s.box != nil {
		return s.box.setFrozen(false)
	}
	if s.guardPid == 0 {
		return errors.New("the tree has neither a cgroup nor a guardian")
	}
	for pid := range descendants(s.guardPid) {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
	return nil
}

// setFrozen writes cgroup.freeze and waits until cgroup.events says the
// cgroup is (or is no longer) frozen.
func (b *box) setFrozen(frozen bool) error {
	want := "0"
	if frozen {
		want = "1"
	}
	if err := os.WriteFile(filepath.Join(b.dir, "cgroup.freeze"), []byte(want), 0); err != nil {
		return fmt.Errorf("freeze cgroup %s: %w", b.dir, err)
	}
	deadline := time.Now().Add(freezeLimit)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		events, err := os.ReadFile(filepath.Join(b.dir, "cgroup.events"))
		if err != nil {
			return fmt.Errorf("read cgroup %s's events: %w", b.dir, err)
		}
		for _, line := range strings.Split(string(events), "\n") {
			if v, ok := strings.CutPrefix(line, "frozen "); ok && v == want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s not %s after %s", b.dir, map[bool]string{true: "frozen", false: "thawed"}[frozen], freezeLimit)
		}
		time.Sleep(pause)
	}
}

// descendants are the living descendants of pid (not pid itself), each
// with its start time.
func descendants(pid int) map[int]uint64 {
	stats, err := readStats()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for p, st := range stats {
		if !st.zombie {
			children[st.ppid] = append(children[st.ppid], p)
		}
	}
	out := map[int]uint64{}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if _, seen := out[c]; !seen {
				out[c] = stats[c].start
				queue = append(queue, c)
			}
		}
	}
	return out
}

// Frozen says whether every process of the tree is frozen (or stopped).
func (s *Started) Frozen() bool {
	if s.box != nil {
		events, err := os.ReadFile(filepath.Join(s.box.dir, "cgroup.events"))
		return err == nil && strings.Contains(string(events), "\nfrozen 1")
	}
	procs := descendants(s.guardPid)
	if len(procs) == 0 {
		return false
	}
	for pid := range procs {
		if st := state(pid); st != 'T' && st != 't' {
			return false
		}
	}
	return true
}

// state is the state letter of /proc/PID/stat, 0 where unknown.
func state(pid int) byte {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2]
	}
	return 0
}
