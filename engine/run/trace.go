package run

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"spawnbench/engine/proc"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/trace"
)

// monotonicHosts are the hosts whose payloads read CLOCK_MONOTONIC
// itself, so their "#at" call times are on the trace's clock as printed:
// native code, the embedded Wasmtime (its clock_time_get is
// clock_gettime(CLOCK_MONOTONIC): engine/wasmhost/chost.c) and WAMR (its
// WASI monotonic clock is the same call: core/shared/platform/common/
// posix/posix_clock.c in 2.4.4). Every other host's clock is put on it by
// the payload's "#sync" reading, or not at all.
var monotonicHosts = map[string]bool{"os": true, "wasmtime": true, "wamr": true}

// syncHosts are the hosts whose payload's "#sync" reading can put its
// clock on CLOCK_MONOTONIC: their WASI real-time clock is
// clock_gettime(CLOCK_REALTIME) to the nanosecond (the Wasmtime CLI's
// through cap-std, which counts WASI's monotonic clock from the WASI
// context's creation instead: 1 to 5 ms into a process here; Wasmer's and
// wazero's likewise from their own origins). A host whose real-time clock
// is coarser (the JavaScript wasi-threads host's is Date.now(), whole
// milliseconds) would put the spawns milliseconds off with no sign of it,
// so it is not aligned at all.
var syncHosts = map[string]bool{"wasmtime-cli": true, "wasmer": true, "wazero": true}

// pageHosts are the browsers whose page's "#sync" reading is its own
// wall clock, performance.timeOrigin + performance.now() (manual/
// index.html), at one moment of its clock. In Chromium that wall clock
// is CLOCK_MONOTONIC plus CLOCK_REALTIME - CLOCK_MONOTONIC as the page's
// renderer read them once (Blink's "Unix time at monotonic zero"), so
// it is put on CLOCK_MONOTONIC through CLOCK_REALTIME as the WASI hosts'
// clocks are, unless the real-time clock was set since; the time origin
// is coarsened as now() is, so the alignment's error adds the page's
// step. Firefox's origin is not known to be made so: not aligned.
var pageHosts = map[string]bool{"chromium": true}

// tracer is the run's one tracefs, opened on the first traced process.
type tracer struct {
	once sync.Once
	t    *trace.Tracer
	err  error
}

// tracedRun is one process's tracing, from before its start to after
// its end.
type tracedRun struct {
	s          *trace.Session
	note       string // why it is not traced; "" when it is
	hostBefore trace.Reading
}

// startTrace readies the tracing of one process of a traced environment
// and returns the context to start it under; for any other environment
// it returns ctx and nil. A run that cannot trace says why once, and
// each process's trace_note says it again.
func (r *Runner) startTrace(ctx context.Context, c cell) (context.Context, *tracedRun) {
	if !c.env.Traced {
		return ctx, nil
	}
	r.tracer.once.Do(func() {
		r.tracer.t, r.tracer.err = trace.Open()
		switch {
		case r.tracer.err != nil:
			r.logf("not tracing the @traced environments: %v; they are measured untraced, and trace_note says why\n", r.tracer.err)
		case r.tracer.t.Mounted != "":
			r.logf("tracing: mounted tracefs at %s (left mounted)\n", r.tracer.t.Mounted)
		}
	})
	if r.tracer.err != nil {
		return ctx, &tracedRun{note: r.tracer.err.Error()}
	}
	s, err := r.tracer.t.Begin()
	if err != nil {
		return ctx, &tracedRun{note: err.Error()}
	}
	// A process started for the benchmark is followed from its fork; a
	// warm browser's page, run by a renderer started before it, from the
	// moment the browser names that renderer.
	ctx = proc.WithFollowHook(proc.WithStartHook(ctx, s.Attach), s.Follow)
	return ctx, &tracedRun{s: s, hostBefore: trace.HostReading()}
}

// endTrace reads a traced process's trace, joins it to its spawns and
// says on row whether it was traced and why not; it returns each spawn's
// trace for the samples (nil when none).
func (r *Runner) endTrace(tr *tracedRun, c cell, row *results.ProcessRun, lines *protocol.Collector) []results.SpawnTrace {
	if tr == nil {
		return nil
	}
	if tr.s == nil {
		row.TraceNote = tr.note
		return nil
	}
	hostAfter := trace.HostReading()
	got, err := tr.s.End()
	if err != nil {
		row.TraceNote = err.Error()
		return nil
	}
	spawns := lines.Lines()
	clock, slack, note := alignClock(c.env.Host, lines.Sync(), lines.Mono(), tr.hostBefore, hostAfter, row.ClockStepNS)
	if note != "" {
		row.TraceNote = note
		return nil
	}
	at := make([]trace.Spawn, len(spawns))
	for i, l := range spawns {
		if l.AtNS == nil {
			row.TraceNote = fmt.Sprintf("the benchmark printed no call time for spawn %d (#at, c/sb.h), so its spawns cannot be put on the trace's clock", i+1)
			return nil
		}
		call := *l.AtNS + clock.OffsetNS
		at[i] = trace.Spawn{CallNS: call, FirstNS: call + l.SpawnNS}
	}
	row.Traced = true
	var notes []string
	if got.Lost > 0 {
		notes = append(notes, fmt.Sprintf("the trace lost %d events (its buffer was full): the spawns after its last complete moment have no trace", got.Lost))
	}
	row.TraceNote = strings.Join(notes, "; ")
	out := make([]results.SpawnTrace, len(spawns))
	for i, a := range trace.Join(got, at, slack) {
		made := a.NewOSThread
		out[i] = results.SpawnTrace{NewOSThread: &made, TaskNewNS: a.TaskNewNS, TaskWakeupNS: a.TaskWakeupNS, TaskFirstRunNS: a.TaskFirstRunNS}
		if a.Unknown {
			out[i].NewOSThread = nil // the events of its window were lost
		}
		if a.TaskFirstCPU >= 0 {
			cpu := int32(a.TaskFirstCPU)
			out[i].TaskFirstCPU = &cpu
		}
		out[i].Phases = phasesOf(spawns[i].Phases, clock, at[i].CallNS)
	}
	return out
}

// phasesOf puts a spawn's host phases on the trace's clock, as offsets
// from its call (callNS, on that clock), as its kernel events are.
func phasesOf(ps []protocol.Phase, clock trace.Clock, callNS int64) []results.Phase {
	if len(ps) == 0 {
		return nil
	}
	out := make([]results.Phase, len(ps))
	for i, p := range ps {
		out[i] = results.Phase{Name: p.Name, EndNS: p.EndNS + clock.OffsetNS - callNS}
	}
	return out
}

// alignClock puts host's payload clock on the trace's: as printed where
// the host reads CLOCK_MONOTONIC, else by the host's "#mono" reading (its
// clock between two of CLOCK_MONOTONIC), else by the payload's "#sync"
// reading; slack is how far the join may look outside a spawn's window
// (the clock's step and the alignment's error). note says why it cannot.
func alignClock(host string, sync, mono *protocol.Sync, before, after trace.Reading, stepNS int64) (c trace.Clock, slack int64, note string) {
	if monotonicHosts[host] {
		return trace.Monotonic, max(stepNS, 1), ""
	}
	if mono != nil {
		c := trace.Direct(trace.Reading{Before: mono.BeforeNS, At: mono.RealtimeNS, After: mono.AfterNS})
		return c, max(stepNS, 1) + c.ErrNS, ""
	}
	if !syncHosts[host] && !pageHosts[host] {
		return trace.Clock{}, 0, fmt.Sprintf("host %s's clock is not CLOCK_MONOTONIC and cannot be put on it to within its step (no fine real-time clock to sync through): the trace cannot be joined to its spawns", host)
	}
	if sync == nil {
		return trace.Clock{}, 0, fmt.Sprintf("host %s's clock is not CLOCK_MONOTONIC and its benchmark printed no #sync reading to put it there: the trace cannot be joined to its spawns", host)
	}
	c, ok := trace.Align(trace.Reading{Before: sync.BeforeNS, At: sync.RealtimeNS, After: sync.AfterNS}, before, after)
	if !ok {
		return trace.Clock{}, 0, "CLOCK_REALTIME was set while the process ran, so host " + host + "'s clock cannot be put on CLOCK_MONOTONIC through it"
	}
	switch {
	case pageHosts[host]:
		c.ErrNS += stepNS // the page's coarsened time origin
	case sync.RealtimeNS%1000 == 0:
		// A whole microsecond may be a coarse clock's reading, whose
		// step the bracket cannot show, so the alignment is taken to be
		// good to that step; refusing it would untrace one process in a
		// thousand of a nanosecond clock, which lands there as often.
		c.ErrNS += 1000
	}
	return c, max(stepNS, 1) + c.ErrNS, ""
}
