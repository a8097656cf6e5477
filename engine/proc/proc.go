// Package proc runs one benchmark process the way every environment needs:
// pinned to the spec's CPUs from its first instruction, its whole process
// tree killed and reaped when its main process ends, its time is up, or it
// is interrupted, its output bounded, and its cost to the machine (CPU
// time, peak memory, context switches, everyone else's CPU time, steal,
// OOM kills) recorded.
//
// Pinning is inherited, not applied after the fact: the forking OS thread
// takes the affinity first, so no thread of the benchmark ever runs
// elsewhere (taskset-after-start would leave a window in which the first
// spawns run unpinned).
//
// A timeout is a hard deadline for the whole tree, not for one process or
// one process group: see contain.go for what holds the tree (a cgroup of
// its own, or a guardian, guardian.go). Nothing the benchmark starts
// outlives its Run, and no pipe a leftover holds open can keep Run
// waiting.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Outcome is what one benchmark process (or page) produced, before any
// interpretation. A process that ran but failed still has an Outcome, so
// samples printed before a crash are kept.
type Outcome struct {
	// Stdout is the standard output, at most StdoutKept bytes of its
	// start; nil when Command.Stdout took it.
	Stdout []byte
	// StdoutDropped counts the bytes of standard output beyond StdoutKept.
	StdoutDropped int64
	// StdoutBytes counts every byte the process tree wrote to its
	// standard output, kept, streamed or dropped: what tells a flood.
	StdoutBytes int64
	// Stderr is the end of the standard error, at most StderrKept bytes.
	Stderr   []byte
	ExitCode int
	// Signal names the signal that ended the process, if one did.
	Signal string
	// TimedOut is set when the process passed its timeout and was killed.
	TimedOut bool
	// Limit, when set, says which limit of its host the process could not
	// run under (a browser's cap on workers, say) and that it was stopped
	// for it: the run records it as capped, not as a bare timeout.
	Limit string
	// RendererPID is the OS process that ran a page (a browser's renderer,
	// engine/browser), so that no two repetitions can be seen to share
	// one; 0 for a process, or where the browser did not say.
	RendererPID int
	// Wall is the wall time, measured outside the process.
	Wall time.Duration
	// RefusedRequests counts the requests a page's server refused for
	// want of the page's secret (engine/browser): another local user's or
	// another web page's, never the page's own. Nil for a process, which
	// has no server.
	RefusedRequests *int64

	// The cost of the whole process tree: the main process and every
	// descendant, from the rusage of each as it was reaped (CPU times and
	// context switches summed, the largest peak resident memory). In a
	// cgroup, the CPU times are the cgroup's (every process that was in
	// it), and the rest is the main process's and what it reaped. Nil when
	// the platform does not say.
	UserNS, SysNS, MaxRSSBytes, InvoluntaryCtxSwitches *int64
	// OthersCPUNS is the CPU time everything else on the machine used
	// while the tree ran: the machine's non-idle time from /proc/stat
	// (user, nice, system, irq, softirq, all CPUs) over the span, less the
	// tree's own user and system time and less spawnbench's own (its
	// supervision, output parsing and journal). StealNS is the
	// hypervisor's steal time over the same span. /proc/stat counts in
	// ticks of USER_HZ (10 ms on common kernels), so both are coarse for
	// short processes, and OthersCPUNS of one process can be negative (no
	// tick landed while it used CPU): sum it over many processes, as the
	// busy rule does (stats.Busy). Nil when the platform does not
	// say.
	OthersCPUNS, StealNS *int64
	// OOMKilled is set when the kernel's OOM killer killed a process of the
	// tree during the run. The evidence must be both: a process of the tree
	// ended by a SIGKILL that spawnbench did not send (or a main process
	// exiting with 128+9, as a shell reports such a child), and a rise, over
	// the run, of the kernel's oom_kill count of spawnbench's memory cgroup
	// (cgroup v2 memory.events or v1 memory.oom_control) or of the
	// machine's (/proc/vmstat). It is never set for a clean exit.
	OOMKilled bool
}

// Command describes one process to run.
type Command struct {
	Argv []string
	Dir  string
	// Env is added to the current environment.
	Env  []string
	CPUs []int
	// Stdout, when set, receives the standard output as it streams (an
	// engine/protocol Collector, say), and Outcome.Stdout is nil. Its
	// errors are ignored: the process's output is drained regardless.
	Stdout io.Writer
	// combined sends standard error to standard output's pipe (Output).
	combined bool
}

// Run starts the command and waits for it, or for ctx to end, whichever
// comes first: it is Start followed by Wait. When ctx ends first the whole
// process tree is killed and the Outcome says TimedOut (for a deadline) or
// the error is ctx's.
func Run(ctx context.Context, c Command) (Outcome, error) {
	s, err := Start(ctx, c)
	if err != nil {
		return Outcome{}, err
	}
	return s.Wait()
}

// Output runs a short tool command (a version query, a compiler) and
// returns its combined output, with the output in the error on failure.
// It has Run's guarantees: when ctx ends (Ctrl-C during a build), the
// tool's whole tree is killed at once and the error wraps ctx's error, so
// an interrupt is never mistaken for a missing or failing tool.
func Output(ctx context.Context, dir string, argv ...string) (string, error) {
	return OutputOf(ctx, Command{Argv: argv, Dir: dir})
}

// OutputOf is Output for a whole Command (one with its own Env, say);
// c.Stdout is ignored. Under a context from WithStepLimit, the command is
// killed when it passes the limit, and says it is still running now and
// then.
func OutputOf(ctx context.Context, c Command) (string, error) {
	argv := c.Argv
	if len(argv) == 0 {
		return "", errors.New("proc: empty command")
	}
	c.Stdout, c.combined = nil, true
	limit, bounded := ctx.Value(stepKey{}).(stepLimit)
	runCtx := ctx
	if bounded {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit.limit)
		defer cancel()
		stop := limit.report(argv)
		defer stop()
	}
	out, err := Run(runCtx, c)
	text := string(out.Stdout)
	switch {
	case err != nil:
		return text, fmt.Errorf("%s: %w", argv[0], err)
	case out.TimedOut && bounded && ctx.Err() == nil:
		return text, fmt.Errorf("%s: still running after %s, killed (the spec's %s bounds every build step and toolchain probe; raise it if the step is only slow)\n%s",
			argv[0], limit.limit, limit.setting, bytes.TrimSpace(out.Stdout))
	case out.TimedOut:
		return text, fmt.Errorf("%s: %w", argv[0], context.DeadlineExceeded)
	case out.Signal != "":
		return text, fmt.Errorf("%s: ended by signal %s\n%s", argv[0], out.Signal, bytes.TrimSpace(out.Stdout))
	case out.ExitCode != 0:
		return text, fmt.Errorf("%s: exit status %d\n%s", argv[0], out.ExitCode, bytes.TrimSpace(out.Stdout))
	}
	return text, nil
}

// stepKey keys a stepLimit in a context.
type stepKey struct{}

// stepLimit bounds each command OutputOf runs: builds and probes must end.
type stepLimit struct {
	limit   time.Duration
	setting string    // where the limit comes from, for messages
	log     io.Writer // receives a line while a step runs long; may be nil
}

// stepNotice is how long a step runs before its first "still running" line.
const stepNotice = 15 * time.Second

// WithStepLimit bounds every command that Output and OutputOf run under
// the returned context to limit (named by setting in messages), with a
// line to log every so often while one runs.
func WithStepLimit(ctx context.Context, limit time.Duration, setting string, log io.Writer) context.Context {
	return context.WithValue(ctx, stepKey{}, stepLimit{limit: limit, setting: setting, log: log})
}

// report writes a line to l.log each time the step has run stepNotice
// longer (doubling), until stop is called.
func (l stepLimit) report(argv []string) (stop func()) {
	if l.log == nil {
		return func() {}
	}
	begun := time.Now()
	done := make(chan struct{})
	go func() {
		for wait := stepNotice; ; wait *= 2 {
			select {
			case <-done:
				return
			case <-time.After(wait - time.Since(begun)):
				fmt.Fprintf(l.log, "\n  still running after %s (killed at %s, %s): %s ", time.Since(begun).Round(time.Second), l.limit, l.setting, shortArgv(argv))
			}
		}
	}()
	return func() { close(done) }
}

func shortArgv(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
