package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Started is a process begun by Start: a benchmark that Run waits for, or
// a long-lived browser that a benchmark page runs in. Its whole process
// tree is killed when its main process ends, when its context ends, when
// Stop is called, or when spawnbench dies (by the keeper of its cgroups,
// or by its guardian: see contain.go).
type Started struct {
	// Pid is the main process's id, which is also its process group id.
	Pid int

	stop chan struct{}
	once sync.Once
	done chan struct{}
	out  Outcome
	err  error

	// What holds the tree, for Freeze and Thaw: its cgroup, or the pid
	// of its guardian (whose descendants the tree is).
	box      *box
	guardPid int
}

const (
	// pipeGrace bounds the wait for the end of the output once the tree is
	// dead: only a process outside the tree (one that outlived a kill that
	// gave up, stuck in the kernel) can still hold the pipes.
	pipeGrace = 500 * time.Millisecond
	// killLimit bounds the killing of a tree; only a process stuck in the
	// kernel survives SIGKILL for long.
	killLimit = 5 * time.Second
)

// Start begins c without waiting for it. extraFiles become the process's
// file descriptors 3, 4, ... (a browser's DevTools pipe, for example).
// When ctx ends, the whole process tree is killed and the Outcome says
// TimedOut for a deadline. The caller must end the process with Stop or
// wait for it with Wait.
func Start(ctx context.Context, c Command, extraFiles ...*os.File) (*Started, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("proc: empty command")
	}
	s := &Started{stop: make(chan struct{}), done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// The child inherits this OS thread's affinity; the thread is
		// discarded when the goroutine returns without unlocking, so the
		// mask never leaks into the rest of spawnbench. Start and Wait stay
		// on this thread so Pdeathsig (tied to the forking thread) only
		// fires when the child is done or spawnbench dies.
		runtime.LockOSThread()
		s.supervise(ctx, c, extraFiles, started)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return s, nil
}

// heldTree is what ended a tree: the main process's end, the tree's
// cost, and what the killing of the rest said.
type heldTree struct {
	wall          time.Duration
	status        syscall.WaitStatus
	endedByItself bool
	usage         treeUsage
	killErr       error
	waitErr       error // the main process (or its guardian) could not be waited for
	helperCPUNS   int64 // a guardian's own CPU time: spawnbench's, not others'
}

// supervise is the one supervisor of a process: it starts it in its
// containment (a cgroup of its own, or under a guardian: contain.go),
// waits for it, has the tree killed and reaped, and fills the Outcome.
func (s *Started) supervise(ctx context.Context, c Command, extraFiles []*os.File, started chan<- error) {
	defer close(s.done)
	setupContainment()
	cg := treeBox()
	var g *guardian
	if cg == nil {
		// Before this thread is pinned: a guardian started from it would
		// keep its CPUs.
		var err error
		if g, err = takeGuardian(); err != nil {
			started <- fmt.Errorf("start %s: %w", c.Argv[0], err)
			return
		}
	}
	if len(c.CPUs) > 0 && cg != nil {
		// A guardian pins the thread it forks from itself.
		var set unix.CPUSet
		for _, cpu := range c.CPUs {
			set.Set(cpu)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			release(cg, g)
			started <- fmt.Errorf("pin to CPUs %v: %w", c.CPUs, err)
			return
		}
	}
	// Spawnbench's own pipes, not exec's: exec's Wait would wait for every
	// holder of the pipes, and a detached grandchild can hold them for ever.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		release(cg, g)
		started <- fmt.Errorf("create a pipe for the standard output of %s: %w", c.Argv[0], err)
		return
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		release(cg, g)
		started <- fmt.Errorf("create a pipe for the standard error of %s: %w", c.Argv[0], err)
		return
	}
	token := newToken()
	env := append(os.Environ(), c.Env...)
	stderrTo := stderrW
	if c.combined {
		stderrTo = stdoutW
	}

	cpuBefore, cpuKnown := readMachineCPU()
	selfBefore, selfKnown := selfCPU()
	oomBefore := readOOMKills()
	var ended <-chan heldTree
	var kill func()
	if cg != nil {
		runStartHook(ctx, []int{gettid()})
		s.Pid, ended, kill, err = startInCgroup(c, append(env, treeVar+"="+token), stdoutW, stderrTo, extraFiles, cg)
		s.box = cg
	} else {
		var t *guarded
		runStartHook(ctx, ThreadsOf(g.cmd.Process.Pid))
		if t, err = startGuarded(g, c, env, token, stdoutW, stderrTo, extraFiles); err == nil {
			s.Pid, ended, kill = t.main, t.held(), t.kill
			s.guardPid = g.cmd.Process.Pid
			defer t.release()
		}
	}
	// The child has its own copies of the write ends; the readers see the
	// end of the output once every holder is gone.
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		started <- fmt.Errorf("start %s: %w", c.Argv[0], err)
		return
	}
	started <- nil

	head := &headBuffer{max: StdoutKept}
	tail := &tailBuffer{max: StderrKept}
	var stdoutSink io.Writer = head
	if c.Stdout != nil {
		stdoutSink = c.Stdout
	}
	stdoutDone, stderrDone := make(chan struct{}), make(chan struct{})
	var stdoutBytes int64 // written by the drain until stdoutDone
	go drain(stdoutR, stdoutSink, &stdoutBytes, stdoutDone)
	go drain(stderrR, tail, nil, stderrDone)

	var h heldTree
	select {
	case h = <-ended:
	case <-ctx.Done():
		kill()
		h = <-ended
		s.out.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if !s.out.TimedOut {
			s.err = ctx.Err()
		}
	case <-s.stop:
		kill()
		h = <-ended
	}
	s.out.Wall = h.wall

	// The tree is dead, so the pipes are at their end unless a process
	// outside the tree holds them: give that one a moment, then stop
	// reading.
	grace := time.NewTimer(pipeGrace)
	for _, p := range []struct {
		r    *os.File
		done chan struct{}
	}{{stdoutR, stdoutDone}, {stderrR, stderrDone}} {
		select {
		case <-p.done:
		case <-grace.C:
			grace.Reset(0)
			_ = p.r.SetReadDeadline(time.Now())
			<-p.done
		}
	}
	grace.Stop()
	cpuAfter, cpuKnownAfter := readMachineCPU()
	selfAfter, selfKnownAfter := selfCPU()
	oomAfter := readOOMKills()

	if c.Stdout == nil {
		s.out.Stdout, s.out.StdoutDropped = head.buf, head.dropped
	}
	s.out.Stderr = tail.Bytes()
	s.out.StdoutBytes = stdoutBytes
	if h.killErr != nil {
		s.out.Stderr = append(s.out.Stderr, "\nspawnbench: "+h.killErr.Error()+"\n"...)
	}
	s.out.ExitCode = -1
	mainSIGKILL := false
	switch ws := h.status; {
	case h.waitErr != nil:
	case ws.Exited():
		s.out.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		s.out.Signal = ws.Signal().String()
		mainSIGKILL = ws.Signal() == syscall.SIGKILL && h.endedByItself
	}
	u := h.usage
	if u.known {
		s.out.UserNS, s.out.SysNS = ptr(u.userNS), ptr(u.sysNS)
		s.out.MaxRSSBytes, s.out.InvoluntaryCtxSwitches = ptr(u.maxRSS), ptr(u.nivcsw)
	}
	if cpuKnown && cpuKnownAfter {
		s.out.StealNS = ptr(cpuAfter.steal - cpuBefore.steal)
		if u.known && selfKnown && selfKnownAfter {
			// Neither the benchmark's tree nor spawnbench itself (its
			// supervision, parsing and journal, and a guardian) is
			// "everything else".
			own := u.userNS + u.sysNS + selfAfter - selfBefore + h.helperCPUNS
			// Not floored at 0: /proc/stat counts whole ticks, so a short
			// process sees a tick of other work or none, and only the sum
			// over many processes is right; a floor per process would
			// make that sum grow with the number of processes.
			s.out.OthersCPUNS = ptr(cpuAfter.busy - cpuBefore.busy - own)
		}
	}
	clean := s.out.ExitCode == 0 && s.out.Signal == ""
	sigkilled := mainSIGKILL || u.sigkills > 0 || (h.endedByItself && s.out.ExitCode == 128+int(syscall.SIGKILL))
	s.out.OOMKilled = !clean && sigkilled && oomAfter.since(oomBefore)
	if h.waitErr != nil && s.err == nil {
		s.err = fmt.Errorf("wait for %s: %w", c.Argv[0], h.waitErr)
	}
}

// release gives back a tree's cgroup or guardian that was not used.
func release(cg *box, g *guardian) {
	if cg != nil {
		_ = cg.remove()
	}
	if g != nil {
		putGuardian(g)
	}
}

// startInCgroup starts c straight into the cgroup cg (clone3's
// CLONE_INTO_CGROUP), so not even its first instruction runs outside; the
// returned channel gives the tree once it is gone (the main process ended,
// or kill was called, and the cgroup was emptied and removed).
func startInCgroup(c Command, env []string, stdout, stderr *os.File, extraFiles []*os.File, cg *box) (pid int, ended <-chan heldTree, kill func(), err error) {
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.ExtraFiles = extraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, UseCgroupFD: true, CgroupFD: cg.fd}
	begun := time.Now()
	if err := cmd.Start(); err != nil {
		_ = cg.remove()
		return 0, nil, nil, err
	}
	t := &tree{main: cmd.Process.Pid, box: cg}
	type waited struct {
		err error
		at  time.Time
	}
	mainEnded := make(chan waited, 1)
	go func() {
		err := cmd.Wait()
		mainEnded <- waited{err, time.Now()}
	}()
	killReq := make(chan struct{})
	var once sync.Once
	out := make(chan heldTree, 1)
	go func() {
		var h heldTree
		var w waited
		select {
		case w = <-mainEnded:
			h.endedByItself = true
		case <-killReq:
			h.killErr = t.killAll(true, killLimit)
			w = <-mainEnded
		}
		h.wall = w.at.Sub(begun)
		var exitErr *exec.ExitError
		if w.err != nil && !errors.As(w.err, &exitErr) {
			h.waitErr = w.err
		}
		if cmd.ProcessState == nil {
			h.waitErr = errors.Join(h.waitErr, errors.New("no process state"))
		} else if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			h.status = ws
		}
		// Whatever ended the main process, the rest of its tree goes with it.
		h.killErr = errors.Join(h.killErr, t.killAll(false, killLimit))
		if cmd.ProcessState != nil {
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
				h.usage.add(ru)
			}
		}
		if cpu, ok := t.cgroupCPU(); ok {
			// Every process that was in the cgroup, orphans reaped by
			// others included.
			h.usage.known, h.usage.userNS, h.usage.sysNS = true, cpu.userNS, cpu.sysNS
		}
		h.killErr = errors.Join(h.killErr, t.close())
		out <- h
	}()
	return t.main, out, func() { once.Do(func() { close(killReq) }) }, nil
}

// held turns the guardian's report of the tree's end into the tree's
// end, on the returned channel.
func (t *guarded) held() <-chan heldTree {
	out := make(chan heldTree, 1)
	go func() {
		r, ok := t.wait()
		t.last, t.lastOK = r, ok
		if !ok {
			out <- heldTree{waitErr: fmt.Errorf("its guardian ended without a report (%v); the tree's orphans may be left", t.g.exited)}
			return
		}
		h := heldTree{
			wall: time.Duration(r.WallNS), status: syscall.WaitStatus(r.Status), endedByItself: r.EndedByItself,
			usage:       treeUsage{known: true, userNS: r.UserNS, sysNS: r.SysNS, maxRSS: r.MaxRSS, nivcsw: r.Nivcsw, sigkills: r.Sigkills},
			helperCPUNS: r.OwnCPUNS,
		}
		if r.KillError != "" {
			h.killErr = errors.New(r.KillError)
		}
		out <- h
	}()
	return out
}

func ptr(v int64) *int64 { return &v }

// Done is closed once the process and its tree are gone.
func (s *Started) Done() <-chan struct{} { return s.done }

// Wait waits for the process to end by itself (or by its context) and
// returns its Outcome, as Run would.
func (s *Started) Wait() (Outcome, error) {
	<-s.done
	return s.out, s.err
}

// Stop kills the process tree if it is still running and returns the
// Outcome. A process that Stop killed has Signal "killed".
func (s *Started) Stop() (Outcome, error) {
	s.once.Do(func() { close(s.stop) })
	return s.Wait()
}
