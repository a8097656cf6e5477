package run

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"spawnbench/engine/cost"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/textfmt"
)

// ProgressEvery is how often a progress line is printed where there is
// no terminal, unless RunOptions say otherwise.
const ProgressEvery = 30 * time.Second

// progress shows a bar with the ETA on a terminal. Elsewhere (CI logs,
// nohup, a file), where a bar would be noise, it prints a line at a
// steady interval and at each tenth of the processes: with the
// interleaved order most cells finish near the end, so the lines per
// finished cell alone would say nothing for long stretches.
type progress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
	*tally
}

// tally is the state the runner and the ticker share.
type tally struct {
	mu sync.Mutex
	// expected is each step's expected time, in run order; done counts
	// the steps finished.
	expected          []time.Duration
	done              int
	doneExp, totalExp time.Duration
	cells, cellsDone  int
	start             time.Time
	tenths            int // tenths of the processes reported so far
	lastLine          time.Time
	// etaAt is the ETA when the last step finished, at lastStep.
	etaAt         time.Duration
	lastStep      time.Time
	stop, stopped chan struct{}
	finishOnce    sync.Once
}

// newProgress tracks the steps to run, expected holding each one's
// expected time in run order, over cells cells.
func newProgress(w io.Writer, expected []time.Duration, cells int, every time.Duration) progress {
	now := time.Now()
	p := progress{w: w, tally: &tally{expected: expected, cells: cells, start: now, lastLine: now, lastStep: now, stop: make(chan struct{}), stopped: make(chan struct{})}}
	for _, e := range expected {
		p.totalExp += e
	}
	p.etaAt = p.totalExp
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(len(expected),
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("processes"),
			progressbar.OptionShowCount(),
			// The ETA is ours, in the description: from the costs, not from
			// the count alone (a browser process costs 100 native ones).
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionClearOnFinish())
	}
	if w == nil || p.bar != nil || len(expected) == 0 {
		close(p.stopped)
		return p
	}
	if every <= 0 {
		every = ProgressEvery
	}
	// A line at least every interval: a tenth's line restarts the wait.
	go func() {
		defer close(p.stopped)
		for {
			p.mu.Lock()
			next := p.lastLine.Add(every)
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-time.After(time.Until(next)):
				p.mu.Lock()
				if !time.Now().Before(p.lastLine.Add(every)) {
					p.printLine()
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// expectedSteps is the expected time of each step of todo, from costs
// (the built-in reference set's when nil), and counts its cells.
func expectedSteps(cells []cell, todo []step, costs *cost.Model) []time.Duration {
	if costs == nil {
		costs = cost.Reference()
	}
	per := make([]time.Duration, len(cells))
	for i, c := range cells {
		per[i] = costs.Process(spec.Cell{Env: c.env, Mode: c.mode, N: c.n, Processes: c.processes, Warmup: c.warmup, Pause: c.pause, Settle: c.settle, Timeout: c.timeout})
	}
	out := make([]time.Duration, len(todo))
	for i, st := range todo {
		out[i] = per[st.Cell]
	}
	return out
}

// scaled is d at this run's speed so far: the finished part's elapsed
// time over its expected time.
func (t *tally) scaled(d time.Duration) time.Duration {
	if t.doneExp <= 0 {
		return d
	}
	return time.Duration(float64(d) * float64(t.lastStep.Sub(t.start)) / float64(t.doneExp))
}

// eta is the time the rest should take now: the rest's expected time at
// this run's speed, counted down since the last step finished, but no
// less than what the steps after the running one take.
func (t *tally) eta(now time.Time) time.Duration {
	if t.done >= len(t.expected) {
		return 0
	}
	after := t.totalExp - t.doneExp - t.expected[t.done]
	return max(t.etaAt-now.Sub(t.lastStep), t.scaled(after))
}

func (p progress) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range n {
		if p.done < len(p.expected) {
			p.doneExp += p.expected[p.done]
		}
		p.done++
	}
	p.lastStep = time.Now()
	p.etaAt = p.scaled(p.totalExp - p.doneExp)
	if p.bar != nil {
		_ = p.bar.Add(n)
		p.bar.Describe("processes, ETA " + cost.Round(p.etaAt).String())
		return
	}
	if total := len(p.expected); total > 0 && p.done*10/total > p.tenths {
		p.tenths = p.done * 10 / total
		p.printLine()
	}
}

// printLine writes processes done/total, cells finished, elapsed and
// ETA; the caller holds mu.
func (p progress) printLine() {
	if p.w == nil || p.bar != nil {
		return
	}
	total := len(p.expected)
	now := time.Now()
	p.lastLine = now
	fmt.Fprintf(p.w, "progress: %d/%d processes (%d%%), %d/%d cells finished, elapsed %s, ETA %s\n",
		p.done, total, p.done*100/max(total, 1), p.cellsDone, p.cells, cost.Round(now.Sub(p.start)), cost.Round(p.eta(now)))
}

// pause clears the bar so a message can be printed on a clean line.
func (p progress) pause() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p progress) resume() {
	if p.bar != nil {
		_ = p.bar.RenderBlank()
	}
}

// finish stops the progress; a second call does nothing (a run finishes
// its planned steps' progress before adaptive rounds start their own).
func (p progress) finish() {
	p.finishOnce.Do(func() { close(p.stop) })
	<-p.stopped
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// cellDone prints one line per finished cell: its processes by status
// and the median spawn of its ok measured processes in this set.
func (p progress) cellDone(set *results.Set, c cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cellsDone++
	if p.w == nil {
		return
	}
	p.pause()
	cells, _ := measuredCells(set, "", c.key)
	m := cells[c.key]
	if m == nil {
		m = &measuredCell{}
	}
	var parts []string
	for s, k := range m.statuses() {
		parts = append(parts, fmt.Sprintf("%d %s", k, s))
	}
	sort.Strings(parts)
	typical := "no samples"
	if e := m.estimate(); e != nil {
		typical = "typical spawn " + textfmt.Estimate(e)
	}
	fmt.Fprintf(p.w, "%-20s %-10s n=%-5d processes: %s; %s\n", c.env.Name, c.mode, c.n, strings.Join(parts, ", "), typical)
	p.resume()
}
