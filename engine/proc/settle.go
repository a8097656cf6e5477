package proc

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Settling: before a measured process starts, the machine's other work
// (everything but spawnbench: another user's job, a build, the kernel's
// own threads, a browser's teardown) should be over, or the process's
// figure is partly theirs. Settle watches the machine in short windows
// until one window's other work is below a bar, up to a cap, and says
// how long it waited and what it saw, so a process that started beside
// load is recorded as such rather than passed off as quiet.

// SettleRule is when the machine counts as settled.
type SettleRule struct {
	// Window is the span each reading covers (0: 20 ms).
	Window time.Duration
	// BelowCPUs is the bar: other work over a window, in CPUs, must be
	// at most this.
	BelowCPUs float64
	// Cap is the longest Settle waits; the process then starts anyway.
	Cap time.Duration
	// AtLeast is the shortest wait (a cell's pause). Its last Window is
	// the first reading, so a pause shorter than Window costs nothing
	// beyond it: the pause and the settling are one wait, not two.
	AtLeast time.Duration
}

// Settled is what one settle step saw.
type Settled struct {
	// Waited is the time from the call to its return.
	Waited time.Duration
	// OthersCPUs is the other work of the last window, in CPUs.
	OthersCPUs float64
	// Quiet is whether that window was below the bar (false: the cap
	// ended the wait).
	Quiet bool
}

// Settle waits r.AtLeast, and then until the machine is settled by r or
// r.Cap has passed, or until ctx ends. ok is false where the machine's
// CPU time cannot be read (then it waits r.AtLeast only).
func Settle(ctx context.Context, r SettleRule) (s Settled, ok bool) {
	begun := time.Now()
	window := r.Window
	if window <= 0 {
		window = 20 * time.Millisecond
	}
	if !sleep(ctx, r.AtLeast-window) {
		s.Waited = time.Since(begun)
		return s, true
	}
	busy, self, at, ok := othersNow()
	if !ok {
		sleep(ctx, r.AtLeast-time.Since(begun))
		return Settled{}, false
	}
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			s.Waited = time.Since(begun)
			return s, true
		case <-timer.C:
		}
		busy2, self2, at2, ok := othersNow()
		if !ok {
			return Settled{}, false
		}
		span := at2.Sub(at)
		if span > 0 {
			// Not floored at 0 either: ticks against exact times.
			s.OthersCPUs = max(0, float64(busy2-busy-(self2-self))/float64(span))
		}
		busy, self, at = busy2, self2, at2
		s.Quiet = s.OthersCPUs <= r.BelowCPUs
		if s.Quiet || time.Since(begun)+window > r.Cap {
			s.Waited = time.Since(begun)
			return s, true
		}
		timer.Reset(window)
	}
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// othersNow is the machine's busy CPU time and spawnbench's own, in ns,
// and when they were read.
func othersNow() (busy, self int64, at time.Time, ok bool) {
	at = time.Now()
	if busy, ok = rootCPUStat(); !ok {
		var m machineCPU
		if m, ok = readMachineCPU(); !ok {
			return 0, 0, at, false
		}
		busy = m.busy
	}
	self, ok = selfCPU()
	return busy, self, at, ok
}

var rootStat struct {
	once sync.Once
	path string
}

// rootCPUStat is the machine's busy CPU time from the root cgroup v2's
// cpu.stat (usage_usec: user, nice, system, irq and softirq of every
// CPU, as /proc/stat's busy, but in µs rather than 10 ms ticks); false
// where there is none to read.
func rootCPUStat() (int64, bool) {
	rootStat.once.Do(func() {
		if mount, err := cgroup2Mount(); err == nil {
			p := filepath.Join(mount, "cpu.stat")
			if _, err := os.Stat(p); err == nil {
				rootStat.path = p
			}
		}
	})
	if rootStat.path == "" {
		return 0, false
	}
	data, err := os.ReadFile(rootStat.path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, found := strings.CutPrefix(line, "usage_usec "); found {
			us, err := strconv.ParseInt(v, 10, 64)
			return us * 1000, err == nil
		}
	}
	return 0, false
}
