package trace

import (
	"math"
	"sort"

	"golang.org/x/sys/unix"
)

// Task is one task the traced tree created, and what the kernel did with
// it first; times are on the trace clock (CLOCK_MONOTONIC), ns.
type Task struct {
	TID int
	// Parent is the thread that created it.
	Parent int
	Comm   string
	// Thread says it shares its creator's process (CLONE_THREAD).
	Thread bool
	NewNS  int64
	// WakeupNS is its first wake-up and FirstRunNS its first switch-in,
	// on FirstCPU; 0 (and -1) where the trace did not see one.
	WakeupNS   int64
	FirstRunNS int64
	FirstCPU   int
}

// Trace is what one traced process tree did.
type Trace struct {
	// Roots are the tree's main processes: the tasks the forkers made
	// (none for a followed process, which was running).
	Roots []int
	// Tasks are every other task of the tree, in order of creation.
	Tasks []Task
	// Events counts the events of the tree read; Lost those the buffer
	// had no room for (the trace is then partial at its end); Foreign
	// those about no task of the tree, which the pid filter should never
	// have let in (dropped).
	Events  int
	Lost    int64
	Foreign int
	// CompleteUntil is the time until which the trace holds every event
	// of the tree: a CPU's buffer that filled up dropped the rest.
	CompleteUntil int64
	// Spawner, when not 0, is the one thread that makes the spawns: a
	// followed process's main thread (a page's, where `new Worker` runs).
	// Its process's other threads make threads of their own meanwhile (a
	// browser's thread pool grows), which are no spawn's.
	Spawner int
}

// build keeps, of the events, the tree forked from forkers, or made of
// the running threads members: its main processes and every task they
// and their tasks created, in order.
func build(evs []event, forkers, members []int) *Trace {
	tr := &Trace{CompleteUntil: math.MaxInt64}
	forker := map[int]bool{}
	for _, f := range forkers {
		forker[f] = true
	}
	inTree := map[int]bool{}
	for _, m := range members {
		inTree[m] = true
	}
	index := map[int]int{} // tid -> Tasks index
	for _, e := range evs {
		switch e.kind {
		case evNewTask:
			switch {
			case inTree[e.by]:
				inTree[e.pid] = true
				index[e.pid] = len(tr.Tasks)
				tr.Tasks = append(tr.Tasks, Task{TID: e.pid, Parent: e.by, Comm: e.comm, Thread: e.flags&unix.CLONE_THREAD != 0, NewNS: e.ts, FirstCPU: -1})
			case forker[e.by]:
				inTree[e.pid] = true
				tr.Roots = append(tr.Roots, e.pid)
			default:
				tr.Foreign++
				continue
			}
		case evWakeupNew:
			i, ok := index[e.pid]
			if !ok {
				if !inTree[e.pid] && !forker[e.pid] {
					tr.Foreign++
				}
				continue
			}
			if tr.Tasks[i].WakeupNS == 0 {
				tr.Tasks[i].WakeupNS = e.ts
			}
		case evSwitch:
			i, ok := index[e.pid]
			if !ok {
				if !inTree[e.prev] && !inTree[e.pid] && !forker[e.prev] && !forker[e.pid] {
					tr.Foreign++
					continue
				}
			} else if tr.Tasks[i].FirstRunNS == 0 {
				tr.Tasks[i].FirstRunNS, tr.Tasks[i].FirstCPU = e.ts, e.cpu
			}
		}
		tr.Events++
	}
	return tr
}

// Spawn is one spawn as its payload reported it, put on the trace's
// clock: CallNS is the parent's reading just before the create call,
// FirstNS the child's first reading (CallNS + spawn_ns).
type Spawn struct {
	CallNS, FirstNS int64
}

// Anatomy is what the trace says of one spawn. With NewOSThread, the
// new task's creation, first wake-up and first run are offsets from the
// spawn's CallNS (as spawn_ns is), each nil where the trace did not see
// it, and FirstCPU the CPU of the first run (-1 where not seen).
type Anatomy struct {
	NewOSThread bool
	// Unknown says the trace cannot tell whether the spawn made a task:
	// its window runs past the trace's CompleteUntil and none was seen.
	Unknown                                 bool
	TaskNewNS, TaskWakeupNS, TaskFirstRunNS *int64
	TaskFirstCPU                            int
}

// Join gives each spawn, in spawn order, the task it made: the earliest
// task of the tree (of its Spawner, where known) not given to an earlier
// spawn that was created between the spawn's call and its child's first
// reading, each bound widened by slackNS (the clocks' steps and
// alignment). A spawn with no such task made no OS thread (a reused
// worker, a pool, a goroutine).
func Join(tr *Trace, spawns []Spawn, slackNS int64) []Anatomy {
	out := make([]Anatomy, len(spawns))
	tasks := append([]Task(nil), tr.Tasks...)
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].NewNS < tasks[j].NewNS })
	taken := make([]bool, len(tasks))
	for k, s := range spawns {
		out[k].TaskFirstCPU = -1
		lo, hi := s.CallNS-slackNS, s.FirstNS+slackNS
		i := sort.Search(len(tasks), func(i int) bool { return tasks[i].NewNS >= lo })
		for ; i < len(tasks) && tasks[i].NewNS <= hi; i++ {
			if taken[i] || tr.Spawner != 0 && tasks[i].Parent != tr.Spawner {
				continue
			}
			taken[i] = true
			t := tasks[i]
			a := &out[k]
			a.NewOSThread = true
			a.TaskNewNS = ptr(t.NewNS - s.CallNS)
			if t.WakeupNS != 0 {
				a.TaskWakeupNS = ptr(t.WakeupNS - s.CallNS)
			}
			if t.FirstRunNS != 0 {
				a.TaskFirstRunNS, a.TaskFirstCPU = ptr(t.FirstRunNS-s.CallNS), t.FirstCPU
			}
			break
		}
		if !out[k].NewOSThread && hi > tr.CompleteUntil {
			out[k].Unknown = true
		}
	}
	return out
}

func ptr(v int64) *int64 { return &v }

// InOrder says whether a spawn's times keep call <= new task <= wake-up
// <= first run <= first instruction, each within slackNS; spawnNS is the
// child's first reading from the call. A spawn without a new OS thread,
// or with a part the trace did not see, is not in order.
func InOrder(a Anatomy, spawnNS, slackNS int64) bool {
	if !a.NewOSThread || a.TaskNewNS == nil || a.TaskWakeupNS == nil || a.TaskFirstRunNS == nil {
		return false
	}
	seq := []int64{0, *a.TaskNewNS, *a.TaskWakeupNS, *a.TaskFirstRunNS, spawnNS}
	for i := 1; i < len(seq); i++ {
		if seq[i] < seq[i-1]-slackNS {
			return false
		}
	}
	return true
}

// Reading is one reading of a payload's clock bracketed by two of
// another: Before <= At's moment <= After on the other clock. A payload
// prints one as "#sync" (its clock, CLOCK_REALTIME, its clock); Host reads
// one here (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_MONOTONIC).
type Reading struct {
	Before, At, After int64
}

// offset is At minus the bracket's middle, and its error (half the
// bracket).
func (r Reading) offset() (mid, err int64) {
	half := (r.After - r.Before) / 2
	return r.At - (r.Before + half), half + 1
}

// HostReading reads CLOCK_REALTIME bracketed by CLOCK_MONOTONIC, the
// tightest of several tries.
func HostReading() Reading {
	best := Reading{Before: 0, After: math.MaxInt64}
	for range 16 {
		var a, b, c unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &a)
		_ = unix.ClockGettime(unix.CLOCK_REALTIME, &b)
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &c)
		r := Reading{Before: a.Nano(), At: b.Nano(), After: c.Nano()}
		if r.After-r.Before < best.After-best.Before {
			best = r
		}
	}
	return best
}

// Clock puts a payload's clock on the trace's: mono = payload + OffsetNS,
// within ErrNS.
type Clock struct {
	OffsetNS, ErrNS int64
}

// Monotonic is the clock of a payload that reads CLOCK_MONOTONIC itself.
var Monotonic = Clock{}

// Align puts a payload's clock on CLOCK_MONOTONIC through CLOCK_REALTIME,
// which both read: guest is the payload's "#sync" reading (its clock
// around CLOCK_REALTIME), host a HostReading. ok is false when host
// readings taken before and after the process disagree by more than
// their errors (the real-time clock was set meanwhile).
func Align(guest Reading, hostBefore, hostAfter Reading) (c Clock, ok bool) {
	// realtime - payload, and realtime - mono.
	gMid, gErr := guest.offset()
	hMid1, hErr1 := hostBefore.offset()
	hMid2, hErr2 := hostAfter.offset()
	if d := hMid1 - hMid2; d > hErr1+hErr2+1000 || -d > hErr1+hErr2+1000 {
		return Clock{}, false
	}
	// mono = realtime - hMid; realtime = payload + gMid.
	return Clock{OffsetNS: gMid - hMid2, ErrNS: gErr + hErr2}, true
}

// Direct puts a payload's clock on CLOCK_MONOTONIC from one reading of it
// (At) between two of CLOCK_MONOTONIC (Before, After), which its host
// took: mono = payload + OffsetNS within ErrNS.
func Direct(r Reading) Clock {
	mid, err := r.offset() // payload - mono
	return Clock{OffsetNS: -mid, ErrNS: err}
}
