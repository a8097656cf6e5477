package browser

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"
)

// A hung page ends at its context's deadline. The tests of hangs set that
// deadline by the page, not by the clock: it passes a moment after the page
// prints "started", so a test waits seconds for a hang however long the
// browser took to start, and the limit only bounds a page that never
// starts.

// startedDeadline is a context whose deadline passes once its page has
// started (or at its limit): its Err is then context.DeadlineExceeded, as
// a clock's deadline's is, and so is that of every context made from it.
type startedDeadline struct {
	context.Context
}

func (c startedDeadline) Err() error {
	if c.Context.Err() != nil {
		return context.DeadlineExceeded
	}
	return nil
}

// pageOutput is a Page.Stdout that keeps what the page printed and ends
// its deadline `after` the page printed "started".
type pageOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	after   time.Duration
	expire  context.CancelFunc
	started bool
}

func (o *pageOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	if !o.started && bytes.Contains(o.buf.Bytes(), []byte("started\n")) {
		o.started = true
		time.AfterFunc(o.after, o.expire)
	}
	return len(p), nil
}

// String is what the page printed so far.
func (o *pageOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// deadlineAfterStart returns a context whose deadline passes `after` the
// page given out as its Stdout prints "started", and at the latest at
// limit (long enough to start a browser on a busy machine).
func deadlineAfterStart(t *testing.T, after, limit time.Duration) (context.Context, *pageOutput) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	ctx, expire := context.WithCancel(ctx)
	t.Cleanup(expire)
	return startedDeadline{ctx}, &pageOutput{after: after, expire: expire}
}
