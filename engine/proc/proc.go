// Package proc runs one benchmark process the way every environment needs:
// pinned to the spec's CPUs from its first instruction, in its own process
// group, killed with all its children on timeout or interrupt, its output
// captured whole.
//
// Pinning is inherited, not applied after the fact: the forking OS thread
// takes the affinity first, so no thread of the benchmark ever runs
// elsewhere (taskset-after-start would leave a window in which the first
// spawns run unpinned).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Outcome is what one benchmark process (or page) produced, before any
// interpretation. A process that ran but failed still has an Outcome, so
// samples printed before a crash are kept.
type Outcome struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	// Signal names the signal that ended the process, if one did.
	Signal string
	// TimedOut is set when the process passed its timeout and was killed.
	TimedOut bool
	// Wall is the wall time, measured outside the process.
	Wall time.Duration
}

// Command describes one process to run.
type Command struct {
	Argv []string
	Dir  string
	// Env is added to the current environment.
	Env  []string
	CPUs []int
	// Stdin, if set, is the process's standard input.
	Stdin []byte
}

// Run starts the command and waits for it, or for ctx to end, whichever
// comes first. When ctx ends first the whole process group is killed and
// the Outcome says TimedOut (for a deadline) or carries ctx's error.
func Run(ctx context.Context, c Command) (Outcome, error) {
	if len(c.Argv) == 0 {
		return Outcome{}, errors.New("proc: empty command")
	}
	type result struct {
		out Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The child inherits this OS thread's affinity; the thread is
		// discarded when the goroutine returns without unlocking, so the
		// mask never leaks into the rest of spawnbench. Start and Wait stay
		// on the same thread so Pdeathsig (tied to the forking thread) only
		// fires when the child is done or spawnbench dies.
		runtime.LockOSThread()
		out, err := runLocked(ctx, c)
		done <- result{out, err}
	}()
	r := <-done
	return r.out, r.err
}

func runLocked(ctx context.Context, c Command) (Outcome, error) {
	if len(c.CPUs) > 0 {
		var set unix.CPUSet
		for _, cpu := range c.CPUs {
			set.Set(cpu)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return Outcome{}, fmt.Errorf("pin to CPUs %v: %w", c.CPUs, err)
		}
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Outcome{}, fmt.Errorf("start %s: %w", c.Argv[0], err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var out Outcome
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-ctx.Done():
		// Kill the group: runtimes such as Node.js and Chromium start
		// children of their own.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		waitErr = <-waited
		out.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	}
	out.Wall = time.Since(start)
	// A benchmark's stray children must not outlive it either.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	out.Stdout = stdout.Bytes()
	out.Stderr = stderr.Bytes()
	out.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		out.Signal = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return out, fmt.Errorf("wait for %s: %w", c.Argv[0], waitErr)
	}
	if !out.TimedOut && ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, nil
}

// Output runs a short tool command (a version query, a compiler) and
// returns its combined output, with the output in the error on failure.
func Output(ctx context.Context, dir string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		return string(b), fmt.Errorf("%s: %w\n%s", argv[0], err, bytes.TrimSpace(b))
	}
	return string(b), nil
}
