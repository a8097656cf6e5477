package run

import (
	"context"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/env"
)

// TestAwaitInterrupt: a benchmark ended by SIGTERM or SIGINT waits for
// spawnbench's own interrupt (it comes: at once; it does not: the grace,
// then recorded as it ended); one ended otherwise does not wait.
func TestAwaitInterrupt(t *testing.T) {
	t.Parallel()
	term := env.Outcome{Signal: syscall.SIGTERM.String()}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	awaitInterrupt(ctx, term)
	if ctx.Err() == nil || time.Since(start) >= interruptGrace {
		t.Errorf("SIGTERM, interrupt after 50 ms: returned after %s, interrupted %v", time.Since(start), ctx.Err() != nil)
	}

	start = time.Now()
	awaitInterrupt(context.Background(), env.Outcome{Signal: syscall.SIGINT.String()})
	if time.Since(start) < interruptGrace {
		t.Errorf("SIGINT, no interrupt: returned after %s, before the grace of %s", time.Since(start), interruptGrace)
	}

	start = time.Now()
	for _, o := range []env.Outcome{{Signal: syscall.SIGKILL.String()}, {Signal: syscall.SIGSEGV.String()}, {ExitCode: 1}, {}} {
		awaitInterrupt(context.Background(), o)
	}
	if time.Since(start) >= interruptGrace {
		t.Errorf("other ends waited %s", time.Since(start))
	}
}
