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
// Stop is called, or when spawnbench dies (its main process by Pdeathsig,
// the rest by spawnbench's keeper: see contain.go).
type Started struct {
	// Pid is the main process's id, which is also its process group id.
	Pid int

	stop chan struct{}
	once sync.Once
	done chan struct{}
	out  Outcome
	err  error
}

const (
	// pipeGrace bounds the wait for the end of the output once the tree is
	// dead: only a process outside the tree (one that left it before
	// spawnbench could see it, and cleared its environment) can still hold
	// the pipes.
	pipeGrace = 500 * time.Millisecond
	// killLimit bounds the killing of a tree; only a process stuck in the
	// kernel survives SIGKILL for long.
	killLimit = 5 * time.Second
	// firstScan and lastScan bound the pause between walks of a running
	// tree. A walk costs about 3 ms of CPU with 100 processes on the
	// machine (BenchmarkScan), beside a benchmark that may be measuring:
	// a process shorter than firstScan is never walked while it runs (its
	// token and the subreaper still find its orphans), and a long one is
	// walked ever more seldom.
	firstScan = 100 * time.Millisecond
	lastScan  = 2 * time.Second
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

// supervise is the one supervisor of a process: it starts it, walks its
// tree while it runs, kills and reaps the tree, and fills the Outcome.
func (s *Started) supervise(ctx context.Context, c Command, extraFiles []*os.File, started chan<- error) {
	defer close(s.done)
	// The tree's cgroup, when there is one (contain.go): the process
	// starts inside it, and the cgroup alone holds the tree. Without one,
	// spawnbench is the subreaper; without that as well, orphans go to
	// init, where the walk still finds them by their token.
	cg := treeBox()
	subreaper := cg == nil && containment.kind == ContainSubreaper && becomeSubreaper() == nil
	if len(c.CPUs) > 0 {
		var set unix.CPUSet
		for _, cpu := range c.CPUs {
			set.Set(cpu)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			started <- fmt.Errorf("pin to CPUs %v: %w", c.CPUs, err)
			return
		}
	}
	// Spawnbench's own pipes, not exec's: exec's Wait would wait for every
	// holder of the pipes, and a detached grandchild can hold them for ever.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		started <- fmt.Errorf("create a pipe for the standard output of %s: %w", c.Argv[0], err)
		return
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		started <- fmt.Errorf("create a pipe for the standard error of %s: %w", c.Argv[0], err)
		return
	}
	token := newToken()
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), c.Env...), treeVar+"="+token)
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	if c.combined {
		cmd.Stderr = stdoutW
	}
	cmd.ExtraFiles = extraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
	}

	cpuBefore, cpuKnown := readMachineCPU()
	selfBefore, selfKnown := selfCPU()
	oomBefore := readOOMKills()
	begun := time.Now()
	err = cmd.Start()
	// The child has its own copies of the write ends; the readers see the
	// end of the output once every holder is gone.
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		if cg != nil {
			_ = cg.remove()
		}
		started <- fmt.Errorf("start %s: %w", c.Argv[0], err)
		return
	}
	s.Pid = cmd.Process.Pid
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

	t := newTree(s.Pid, token)
	t.box = cg
	t.adoptedByInit = !subreaper
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var waitErr error
	scanEvery := firstScan
	scanTimer := time.NewTimer(scanEvery)
	if cg != nil {
		// The cgroup knows the tree: no walks beside the benchmark.
		scanTimer.Stop()
	}
	var killErr error
	endedByItself := false
wait:
	for {
		select {
		case waitErr = <-waited:
			endedByItself = true
			break wait
		case <-ctx.Done():
			killErr = t.killAll(true, killLimit)
			waitErr = <-waited
			s.out.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
			if !s.out.TimedOut {
				s.err = ctx.Err()
			}
			break wait
		case <-s.stop:
			killErr = t.killAll(true, killLimit)
			waitErr = <-waited
			break wait
		case <-scanTimer.C:
			// Learn the tree while its links are there, and reap the
			// orphans that ended so they do not pile up as zombies.
			t.scan()
			t.reap()
			scanEvery = min(2*scanEvery, lastScan)
			scanTimer.Reset(scanEvery)
		}
	}
	scanTimer.Stop()
	s.out.Wall = time.Since(begun)
	t.mainReaped = true
	// Whatever ended the main process, the rest of its tree goes with it.
	killErr = errors.Join(killErr, t.killAll(false, killLimit))
	cgUsage, cgUsageKnown := t.cgroupCPU()
	killErr = errors.Join(killErr, t.close())

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
	if killErr != nil {
		s.out.Stderr = append(s.out.Stderr, "\nspawnbench: "+killErr.Error()+"\n"...)
	}
	s.out.ExitCode = cmd.ProcessState.ExitCode()
	mainSIGKILL := false
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		s.out.Signal = ws.Signal().String()
		mainSIGKILL = ws.Signal() == syscall.SIGKILL && endedByItself
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		t.usage.add(ru)
	}
	if cgUsageKnown {
		// Every process that was in the cgroup, orphans reaped by others
		// included.
		t.usage.known, t.usage.userNS, t.usage.sysNS = true, cgUsage.userNS, cgUsage.sysNS
	}
	u := t.usage
	if u.known {
		s.out.UserNS, s.out.SysNS = ptr(u.userNS), ptr(u.sysNS)
		s.out.MaxRSSBytes, s.out.InvoluntaryCtxSwitches = ptr(u.maxRSS), ptr(u.nivcsw)
	}
	if cpuKnown && cpuKnownAfter {
		s.out.StealNS = ptr(cpuAfter.steal - cpuBefore.steal)
		if u.known && selfKnown && selfKnownAfter {
			// Neither the benchmark's tree nor spawnbench itself (its
			// supervision, parsing and journal) is "everything else".
			own := u.userNS + u.sysNS + selfAfter - selfBefore
			// Not floored at 0: /proc/stat counts whole ticks, so a short
			// process sees a tick of other work or none, and only the sum
			// over many processes is right; a floor per process would
			// make that sum grow with the number of processes.
			s.out.OthersCPUNS = ptr(cpuAfter.busy - cpuBefore.busy - own)
		}
	}
	clean := s.out.ExitCode == 0 && s.out.Signal == ""
	sigkilled := mainSIGKILL || u.sigkills > 0 || (endedByItself && s.out.ExitCode == 128+int(syscall.SIGKILL))
	s.out.OOMKilled = !clean && sigkilled && oomAfter.since(oomBefore)

	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && s.err == nil {
		s.err = fmt.Errorf("wait for %s: %w", c.Argv[0], waitErr)
	}
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
