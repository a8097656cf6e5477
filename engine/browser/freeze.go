package browser

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"spawnbench/engine/proc"
)

// A warm browser is frozen between its pages: the processes of other
// environments run interleaved with its pages, and a browser left to
// itself keeps working between them (timers, garbage collection, a
// renderer started ahead of need, the last page's teardown), on the
// same CPUs. So once a page's context has closed, its renderer is given
// a moment to exit, and then the browser's whole tree is frozen
// (engine/proc's Freeze) until its next page, or its stop.

// rendererExitLimit bounds the wait for a closed page's renderer to end
// before the browser is frozen; a browser that keeps the process for
// reuse is frozen with it. A renderer that ends does so within a third
// of a second (all but 3 of 658 pages of the main job of 7 December
// 2026); one kept for reuse never does, and its 67 waits of a 2 s limit
// were two minutes of that run.
const rendererExitLimit = 500 * time.Millisecond

func (c *chromium) tree() *proc.Started { return c.proc }
func (f *firefox) tree() *proc.Started  { return f.proc }

// freeze waits for the renderer of the page just closed (0: none known)
// to end, then freezes the browser. A browser that cannot be frozen is
// not kept: the caller stops it.
func (w *Warm) freeze(renderer int) error {
	if renderer > 0 {
		deadline := time.Now().Add(rendererExitLimit)
		for alive(renderer) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := w.inst.tree().Freeze(); err != nil {
		_ = w.inst.tree().Thaw()
		return fmt.Errorf("freeze %s between pages: %w", w.b.Name(), err)
	}
	w.frozen = true
	return nil
}

// thaw lets a frozen browser run again; nothing when it is not frozen.
func (w *Warm) thaw() error {
	if !w.frozen || w.inst == nil {
		return nil
	}
	w.frozen = false
	if err := w.inst.tree().Thaw(); err != nil {
		return fmt.Errorf("thaw %s for its next page: %w", w.b.Name(), err)
	}
	return nil
}

// alive says whether pid is a process that has not ended (a zombie has).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
		}
	}
	return false
}
