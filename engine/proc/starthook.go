package proc

import (
	"context"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// startHookKey keys a start hook in a context.
type startHookKey struct{}

// WithStartHook returns a context under which every process Start (and
// Run) begins calls hook first with the ids of the OS threads that will
// fork it, before the fork: the supervisor's own pinned thread for a tree
// started into a cgroup, every thread of its guardian otherwise. A tracer
// that follows forks from those threads (engine/trace) so sees the main
// process from its first instruction. The hook runs on the forking
// thread and must not block for long; it cannot stop the start.
func WithStartHook(ctx context.Context, hook func(forkers []int)) context.Context {
	return context.WithValue(ctx, startHookKey{}, hook)
}

// runStartHook calls ctx's start hook, if any, with forkers.
func runStartHook(ctx context.Context, forkers []int) {
	if hook, ok := ctx.Value(startHookKey{}).(func([]int)); ok && hook != nil {
		hook(forkers)
	}
}

// followHookKey keys a follow hook in a context.
type followHookKey struct{}

// WithFollowHook returns a context under which a host that runs the
// benchmark in a process it did not start for it (a warm browser's
// renderer, which exists before the page) calls hook with that process
// before the benchmark begins: no start hook can see its fork, so a
// tracer follows the running process and what it creates from then on.
func WithFollowHook(ctx context.Context, hook func(pid int)) context.Context {
	return context.WithValue(ctx, followHookKey{}, hook)
}

// FollowHook is ctx's follow hook, or nil.
func FollowHook(ctx context.Context) func(pid int) {
	hook, _ := ctx.Value(followHookKey{}).(func(int))
	return hook
}

// ThreadsOf lists the thread ids of process pid; just pid when they
// cannot be read.
func ThreadsOf(pid int) []int {
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return []int{pid}
	}
	var out []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// gettid is the calling OS thread's id.
func gettid() int { return unix.Gettid() }
