// Package trace records, from the kernel's own clock, what happens to the
// OS threads a benchmark process creates: when each new task is created
// (task:task_newtask), first woken (sched:sched_wakeup_new) and first
// switched in (sched:sched_switch), on which CPU; and joins each spawn a
// benchmark printed to the task it made, so a spawn splits into the
// runtime's work before the thread, the kernel's, the scheduler's and the
// runtime's work in the new thread (issue 48).
//
// This package is opinionated:
//
//   - A process is traced in a tracefs trace instance of its own
//     (instances/spawnbench-<owner>-<seq>), never in the global buffer
//     another tool may be using, and only its own process tree: the pid
//     filter (set_event_pid) holds the threads that fork it, given before
//     the fork (proc.WithStartHook), and options/event-fork adds every
//     task the tree creates. Nothing of another process is kept: a
//     sched_switch names the task on the other side of a switch, and the
//     parser drops every event that is not about a task of the tree.
//   - Tracing changes the machine's state, so it never outlives its run:
//     the instance is removed when the process's trace is read, and what
//     a killed spawnbench (SIGKILL included) left is removed by its keeper
//     (proc.OnOwnerGone) or, failing that, by the next spawnbench that
//     traces. Two runs at once trace in two instances, apart.
//   - The trace's clock is CLOCK_MONOTONIC (trace_clock "mono"), the
//     clock native benchmarks read; a payload on another clock is put on
//     it by a measured offset (Align), or not joined at all: a time on a
//     clock that does not line up is worse than none.
//   - The buffer is read raw (per_cpu/cpuN/trace_pipe_raw), for
//     nanoseconds: the text file prints microseconds. A buffer that
//     filled up drops the newest events and says how many (Trace.Lost).
//   - Where a run may not trace (not root, no tracefs, an event the
//     kernel lacks), Open says why in a sentence, once, and the run
//     measures as it would untraced.
package trace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"spawnbench/engine/proc"

	"golang.org/x/sys/unix"
)

// instancePrefix starts the name of every trace instance spawnbench
// makes: "spawnbench-<owner>-<seq>", owner being proc.Owner().
const instancePrefix = "spawnbench-"

// defaultMount is where tracefs is mounted when it is not already.
const defaultMount = "/sys/kernel/tracing"

// bufferKB is each instance's ring buffer per CPU: a process of a
// thousand threads makes some ten thousand events (about 50 bytes
// each), a browser's tree far more.
const bufferKB = 8192

// The events a trace records, as "system/event".
var events = []string{"task/task_newtask", "sched/sched_wakeup_new", "sched/sched_switch"}

func init() {
	// The keeper of a spawnbench that is gone removes its instances.
	proc.OnOwnerGone(func(owner string) {
		if root, err := findMount(); err == nil {
			removeInstances(root, func(o string) bool { return o == owner })
		}
	})
}

// Tracer is tracefs, ready to trace processes in instances of their own.
type Tracer struct {
	root    string // the tracefs mount
	formats map[string]format
	seq     atomic.Int64
	// Mounted is where the tracer mounted tracefs itself, "" where it
	// was mounted already; it stays mounted (another run may use it).
	Mounted string
}

var openOnce struct {
	sync.Mutex
	t    *Tracer
	err  error
	done bool
}

// Open readies tracefs for tracing, once per spawnbench: as root, with
// tracefs mounted (mounting it at /sys/kernel/tracing where it is not),
// trace instances and the events this package records. Its error is why
// this run cannot trace, a sentence with the fix. It also removes the
// instances of spawnbenches that are gone.
func Open() (*Tracer, error) {
	openOnce.Lock()
	defer openOnce.Unlock()
	if !openOnce.done {
		openOnce.t, openOnce.err = open()
		openOnce.done = true
	}
	return openOnce.t, openOnce.err
}

func open() (*Tracer, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("not root: the kernel's tracefs (trace instances, the scheduler's events) is root's alone; run spawnbench as root to trace")
	}
	t := &Tracer{}
	root, err := findMount()
	if err != nil {
		if err := os.MkdirAll(defaultMount, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("tracefs is not mounted and %s cannot be made: %w", defaultMount, err)
		}
		if err := unix.Mount("nodev", defaultMount, "tracefs", 0, ""); err != nil {
			return nil, fmt.Errorf("tracefs is not mounted and mounting it at %s failed: %w (a kernel without CONFIG_FTRACE has none; mount it with: mount -t tracefs nodev %s)", defaultMount, err, defaultMount)
		}
		root, t.Mounted = defaultMount, defaultMount
	}
	t.root = root
	if _, err := os.Stat(filepath.Join(root, "instances")); err != nil {
		return nil, fmt.Errorf("tracefs at %s has no trace instances (a kernel before 3.14?): %w", root, err)
	}
	t.formats = map[string]format{}
	for _, ev := range events {
		text, err := os.ReadFile(filepath.Join(root, "events", ev, "format"))
		if err != nil {
			return nil, fmt.Errorf("the kernel has no trace event %s (tracefs at %s): %w", strings.Replace(ev, "/", ":", 1), root, err)
		}
		f, err := parseFormat(text)
		if err != nil {
			return nil, fmt.Errorf("trace event %s: %w", ev, err)
		}
		t.formats[ev] = f
	}
	clocks, err := os.ReadFile(filepath.Join(root, "trace_clock"))
	if err != nil || !bytes.Contains(clocks, []byte("mono ")) && !bytes.Contains(clocks, []byte("[mono]")) {
		return nil, fmt.Errorf("tracefs at %s offers no CLOCK_MONOTONIC trace clock (mono) to line up with the benchmarks' clocks (it offers: %s)", root, bytes.TrimSpace(clocks))
	}
	RemoveStale(root)
	return t, nil
}

// findMount is where tracefs is mounted.
func findMount() (string, error) { return proc.MountOf("tracefs") }

// RemoveStale removes the trace instances of spawnbenches that are gone
// (a keeper killed with its spawnbench leaves them).
func RemoveStale(root string) {
	removeInstances(root, proc.OwnerGone)
}

// removeInstances removes every instance of spawnbench's whose owner
// gone says is gone.
func removeInstances(root string, gone func(owner string) bool) {
	entries, _ := os.ReadDir(filepath.Join(root, "instances"))
	for _, e := range entries {
		owner, ok := instanceOwner(e.Name())
		if ok && gone(owner) {
			_ = removeInstance(filepath.Join(root, "instances", e.Name()))
		}
	}
}

// instanceOwner reads "spawnbench-<pid>-<start>-<seq>".
func instanceOwner(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, instancePrefix)
	if !ok {
		return "", false
	}
	f := strings.SplitN(rest, "-", 3)
	if len(f) != 3 {
		return "", false
	}
	for _, x := range f {
		if _, err := strconv.ParseUint(x, 10, 64); err != nil {
			return "", false
		}
	}
	return f[0] + "-" + f[1], true
}

// removeInstance stops an instance and removes it. The kernel refuses
// (EBUSY) while any file of the instance is open, and a child forked by
// another goroutine holds copies of this process's descriptors until it
// execs, close-on-exec or not: so a busy instance is tried again for a
// second before the error.
func removeInstance(dir string) error {
	_ = os.WriteFile(filepath.Join(dir, "tracing_on"), []byte("0"), 0)
	var err error
	for try := 0; try < 50; try++ {
		err = unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("remove trace instance %s: %w", dir, err)
}

// Instances lists the trace instances of spawnbench's present now, by
// name (for tests and diagnostics).
func Instances() []string {
	root, err := findMount()
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir(filepath.Join(root, "instances"))
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), instancePrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Session is the tracing of one process tree, in an instance of its own.
type Session struct {
	t   *Tracer
	dir string
	mu  sync.Mutex
	// forkers are the threads the tree is forked from (Attach); members
	// the threads of a running process the tree is (Follow), spawner
	// that process's main thread.
	forkers, members []int
	spawner          int
	on               bool
	err              error
	ended            bool
}

// Begin makes a trace instance for one process tree, set up but
// recording nothing until Attach names the threads that fork it or
// Follow the process it is.
func (t *Tracer) Begin() (*Session, error) {
	name := fmt.Sprintf("%s%s-%d", instancePrefix, proc.Owner(), t.seq.Add(1))
	dir := filepath.Join(t.root, "instances", name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make trace instance %s: %w", dir, err)
	}
	s := &Session{t: t, dir: dir}
	for _, w := range []struct{ file, value string }{
		{"tracing_on", "0"},
		{"trace_clock", "mono"},
		{"buffer_size_kb", strconv.Itoa(bufferKB)},
		// Keep the start, drop the newest when full: a spawn's events
		// come early in its process.
		{"options/overwrite", "0"},
		{"options/event-fork", "1"},
	} {
		if err := os.WriteFile(filepath.Join(dir, w.file), []byte(w.value), 0); err != nil {
			_ = removeInstance(dir)
			return nil, fmt.Errorf("set up trace instance %s: write %s: %w", dir, w.file, err)
		}
	}
	return s, nil
}

// Attach is a proc start hook (proc.WithStartHook): it adds the threads
// that are about to fork the tree to the instance's pid filter and, the
// first time, turns the events and the recording on. A failure is kept
// for End to report; the process runs regardless.
func (s *Session) Attach(forkers []int) { s.add(forkers, &s.forkers) }

// Follow is a proc follow hook (proc.WithFollowHook): the tree is the
// running process pid, whose threads it adds to the pid filter as Attach
// adds forkers; the tasks they create from then on are the tree's, as a
// forked process's are, and the spawns are its main thread's (Trace's
// Spawner). A thread the process makes while its threads are listed is
// missed, with what it creates.
func (s *Session) Follow(pid int) {
	s.add(proc.ThreadsOf(pid), &s.members)
	s.mu.Lock()
	s.spawner = pid
	s.mu.Unlock()
}

// add puts tids in the pid filter and in *into and turns the trace on.
func (s *Session) add(tids []int, into *[]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.ended {
		return
	}
	var list []byte
	for _, tid := range tids {
		list = strconv.AppendInt(list, int64(tid), 10)
		list = append(list, ' ')
	}
	f, err := os.OpenFile(filepath.Join(s.dir, "set_event_pid"), os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.Write(list)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		s.err = fmt.Errorf("give the trace its process tree (set_event_pid): %w", err)
		return
	}
	*into = append(*into, tids...)
	if s.on {
		return
	}
	// After the pid filter: with none, an event would record every task.
	for _, ev := range events {
		if err := os.WriteFile(filepath.Join(s.dir, "events", ev, "enable"), []byte("1"), 0); err != nil {
			s.err = fmt.Errorf("enable trace event %s: %w", ev, err)
			return
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, "tracing_on"), []byte("1"), 0); err != nil {
		s.err = fmt.Errorf("turn the trace on: %w", err)
		return
	}
	s.on = true
}

// End stops the recording, reads the trace and removes the instance.
func (s *Session) End() (*Trace, error) {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	_ = os.WriteFile(filepath.Join(s.dir, "tracing_on"), []byte("0"), 0)
	defer func() { _ = removeInstance(s.dir) }()
	if s.err != nil {
		return nil, s.err
	}
	if !s.on {
		return nil, errors.New("no process was given to the trace: the host ran the benchmark in a process started before it and did not name it before the benchmark began (a browser's page whose renderer was not found)")
	}
	raw, lost, complete, err := s.read()
	if err != nil {
		return nil, err
	}
	tr := build(raw, s.forkers, s.members)
	tr.Lost, tr.CompleteUntil, tr.Spawner = lost, complete, s.spawner
	return tr, nil
}

// Close removes the instance if End did not.
func (s *Session) Close() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	_ = removeInstance(s.dir)
}

// Dir is the instance's directory.
func (s *Session) Dir() string { return s.dir }
