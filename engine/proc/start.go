package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Started is a long-lived process begun by Start, such as a browser that a
// benchmark page runs in. It has Run's guarantees: pinned from its first
// instruction, in its own process group, and killed with that whole group
// when its context ends, when Stop is called, or when spawnbench dies.
type Started struct {
	// Pid is the process id, which is also its process group id.
	Pid int

	stop   chan struct{}
	once   sync.Once
	done   chan struct{}
	out    Outcome
	err    error
	stdout tailBuffer
	stderr tailBuffer
}

// outputKept bounds the output a Started process keeps: a browser logging
// to stderr for a long run must not grow spawnbench without limit, and it
// is the end of the output that says why a process died.
const outputKept = 4 << 20

// waitDelay bounds how long the end of a process waits for its output
// pipes once the group is dead; a child that left the group could
// otherwise hold them open for ever.
const waitDelay = 2 * time.Second

// Start begins c without waiting for it. extraFiles become the process's
// file descriptors 3, 4, ... (a browser's DevTools pipe, for example).
// When ctx ends, the whole process group is killed and the Outcome says
// TimedOut for a deadline. The caller must end the process with Stop or
// wait for it with Wait.
func Start(ctx context.Context, c Command, extraFiles ...*os.File) (*Started, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("proc: empty command")
	}
	s := &Started{stop: make(chan struct{}), done: make(chan struct{})}
	s.stdout.max, s.stderr.max = outputKept, outputKept
	started := make(chan error, 1)
	go func() {
		// As in Run: the child inherits this locked thread's affinity, and
		// the thread stays alive (so Pdeathsig stays armed) until the
		// process is gone; it is discarded when the goroutine returns.
		runtime.LockOSThread()
		s.supervise(ctx, c, extraFiles, started)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Started) supervise(ctx context.Context, c Command, extraFiles []*os.File, started chan<- error) {
	defer close(s.done)
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
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdout = &s.stdout
	cmd.Stderr = &s.stderr
	cmd.ExtraFiles = extraFiles
	cmd.WaitDelay = waitDelay
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	begun := time.Now()
	if err := cmd.Start(); err != nil {
		started <- fmt.Errorf("start %s: %w", c.Argv[0], err)
		return
	}
	s.Pid = cmd.Process.Pid
	started <- nil

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-s.Pid, syscall.SIGKILL)
		waitErr = <-waited
		s.out.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if !s.out.TimedOut {
			s.err = ctx.Err()
		}
	case <-s.stop:
		_ = syscall.Kill(-s.Pid, syscall.SIGKILL)
		waitErr = <-waited
	}
	// Whatever ended the leader, its children go with it.
	_ = syscall.Kill(-s.Pid, syscall.SIGKILL)
	s.out.Wall = time.Since(begun)
	s.out.Stdout = s.stdout.Bytes()
	s.out.Stderr = s.stderr.Bytes()
	s.out.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		s.out.Signal = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) && s.err == nil {
		s.err = fmt.Errorf("wait for %s: %w", c.Argv[0], waitErr)
	}
}

// Done is closed once the process and its group are gone.
func (s *Started) Done() <-chan struct{} { return s.done }

// Wait waits for the process to end by itself (or by its context) and
// returns its Outcome, as Run would.
func (s *Started) Wait() (Outcome, error) {
	<-s.done
	return s.out, s.err
}

// Stop kills the process group if it is still running and returns the
// Outcome. A process that Stop killed has Signal "killed".
func (s *Started) Stop() (Outcome, error) {
	s.once.Do(func() { close(s.stop) })
	return s.Wait()
}

// tailBuffer keeps the last max bytes written to it; it is safe for
// concurrent use (exec copies stdout and stderr on goroutines of its own).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// Bytes returns a copy of what is kept.
func (b *tailBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}
