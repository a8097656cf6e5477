// Package protocol reads the line protocol every benchmark speaks to
// spawnbench (see c/sb.h): one line per spawn, "spawn_ns create_ns
// joined_ns parent_cpu child_cpu" (one to three decimal integers, then
// optionally the two CPUs), blank lines and lines starting with '#'
// skipped, except four directives: "#cpu K parent_cpu child_cpu", by which a
// host gives spawn K's CPUs when the benchmark cannot; "#clock step_ns
// read_ns", by which the calibration benchmark gives its clock's
// resolution and the cost of one reading; "#at K call_ns", spawn K's call
// on the benchmark's clock as read (not from any start), by which a spawn
// is put on the kernel's clock for tracing; and "#sync clock_ns
// realtime_ns clock_ns", one CLOCK_REALTIME reading between two of the
// benchmark's clock, by which a clock that is not CLOCK_MONOTONIC is put
// on it; or "#mono mono_ns clock_ns mono_ns", one reading of the
// benchmark's clock between two of CLOCK_MONOTONIC, printed by a host that
// can read both (Node.js's process.hrtime); and "#phase K name end_ns", by
// which a host that times its own work in a new thread says where one of
// spawn K's phases (named by the host) ended, on the benchmark's clock as
// read, as "#at" is.
//
// This package is opinionated: output is parsed as it streams, and what a
// benchmark prints never decides how much memory spawnbench uses. A
// Collector keeps at most max parsed lines and only counts the rest, holds
// at most MaxLineBytes of a line it has not finished, and turns an
// overlong or malformed line into an error naming its line number: a
// misbehaving benchmark becomes a failed process, never a crash.
package protocol

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"sync"
)

// Line is one spawn as the benchmark reported it, in nanoseconds from the
// parent's reading just before pthread_create. CreateNS and JoinedNS are
// nil when the line does not carry them. ParentCPU (the parent's CPU when
// pthread_create returned) and ChildCPU (the child's at its first clock
// reading) are nil when neither the line nor a "#cpu" directive says.
type Line struct {
	SpawnNS   int64
	CreateNS  *int64
	JoinedNS  *int64
	ParentCPU *int32
	ChildCPU  *int32
	// AtNS is when the spawn's call began (the parent's reading just
	// before it) on the benchmark's clock as read, from its "#at"
	// directive; nil without one.
	AtNS *int64
	// Phases are the host's own phases of the spawn, from its "#phase"
	// directives, in the order printed; nil without any.
	Phases []Phase
}

// Phase is one "#phase" directive: where the host's phase Name of a spawn
// ended, on the benchmark's clock as read.
type Phase struct {
	Name  string
	EndNS int64
}

// MaxPhases bounds the "#phase" directives kept per spawn: a host names a
// handful, and what a host prints never decides how much memory is used.
const MaxPhases = 8

// cpuDirective is the prefix of a "#cpu K parent_cpu child_cpu" line.
const cpuDirective = "#cpu "

// clockDirective is the prefix of a "#clock step_ns read_ns" line.
const clockDirective = "#clock "

// atDirective is the prefix of a "#at K call_ns" line, syncDirective of
// a "#sync clock_ns realtime_ns clock_ns" line.
const (
	atDirective    = "#at "
	syncDirective  = "#sync "
	monoDirective  = "#mono "
	phaseDirective = "#phase "
)

// Sync is a "#sync" directive: a CLOCK_REALTIME reading (RealtimeNS)
// between two readings of the benchmark's own clock.
type Sync struct {
	BeforeNS, RealtimeNS, AfterNS int64
}

// ClockFacts are what a "#clock" directive says of the benchmark's clock:
// the smallest step between two readings that differ, and the mean cost of
// one reading, both ns.
type ClockFacts struct {
	StepNS, ReadNS int64
}

// placement is one "#cpu" directive: spawn k's CPUs.
type placement struct {
	k             int64
	parent, child *int32
}

// MaxLineBytes bounds one line, its line end excluded. A protocol line is
// under 64 bytes; the bound leaves room for long comments.
const MaxLineBytes = 64 << 10

// quoted bounds how much of a bad line an error message repeats.
const quoted = 80

// Collector parses the protocol from what is written to it. It is an
// io.Writer, so a process's stdout can stream into it; it is safe for
// concurrent use. The first malformed line ends parsing (later lines are
// neither kept nor counted), as the benchmark's output can no longer be
// trusted to line up with its spawns.
type Collector struct {
	mu    sync.Mutex
	max   int
	lines []Line
	extra int
	// cpus are the "#cpu" directives kept, at most max: Lines applies
	// them, whichever came first, the spawn line or its directive.
	cpus  []placement
	clock *ClockFacts // the last "#clock" directive
	// ats are the "#at" directives kept, at most max; phases the
	// "#phase" ones, at most MaxPhases per spawn kept.
	ats      []at
	phases   []phaseAt
	phasesOf map[int64]int // phases kept per spawn
	sync     *Sync         // the tightest "#sync" directive
	mono     *Sync         // the tightest "#mono" directive: CLOCK_MONOTONIC around the benchmark's clock
	lineNo   int           // lines completed so far
	partial  []byte        // the unfinished line, at most MaxLineBytes
	skip     bool          // the unfinished line is overlong and is being dropped
	err      error
	closed   bool
}

// NewCollector returns a Collector that keeps at most max spawn lines; a
// negative max keeps every line (for small outputs only, see Parse).
func NewCollector(max int) *Collector {
	return &Collector{max: max}
}

// Write parses every complete line in p and keeps the rest for the next
// Write. It never fails, so the process writing never sees an error: a
// problem with the output is reported by Err.
func (c *Collector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.err != nil || c.closed {
		return n, nil
	}
	for len(p) > 0 && c.err == nil {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.hold(p)
			break
		}
		if c.skip {
			c.lineNo++
			c.skip = false
			c.fail(fmt.Errorf("stdout line %d is longer than %d bytes: not the spawn protocol (c/sb.h)", c.lineNo, MaxLineBytes))
			break
		}
		if len(c.partial) > 0 {
			if len(c.partial)+i > MaxLineBytes {
				c.lineNo++
				c.fail(fmt.Errorf("stdout line %d is longer than %d bytes: not the spawn protocol (c/sb.h)", c.lineNo, MaxLineBytes))
				break
			}
			c.partial = append(c.partial, p[:i]...)
			c.line(c.partial)
			c.partial = c.partial[:0]
		} else {
			if i > MaxLineBytes {
				c.lineNo++
				c.fail(fmt.Errorf("stdout line %d is longer than %d bytes: not the spawn protocol (c/sb.h)", c.lineNo, MaxLineBytes))
				break
			}
			c.line(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

// hold keeps the start of an unfinished line, or notes that it is overlong.
func (c *Collector) hold(p []byte) {
	if c.skip {
		return
	}
	if len(c.partial)+len(p) > MaxLineBytes {
		c.skip = true
		c.partial = nil
		return
	}
	c.partial = append(c.partial, p...)
}

func (c *Collector) fail(err error) {
	c.err = err
	c.partial = nil
}

// line parses one complete line (without its '\n').
func (c *Collector) line(b []byte) {
	c.lineNo++
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte(cpuDirective)) {
		c.directive(b)
		return
	}
	if bytes.HasPrefix(b, []byte(clockDirective)) {
		c.clockDirective(b)
		return
	}
	if bytes.HasPrefix(b, []byte(atDirective)) {
		c.atDirective(b)
		return
	}
	if bytes.HasPrefix(b, []byte(syncDirective)) {
		c.syncDirective(b, &c.sync, "#sync clock_ns realtime_ns clock_ns")
		return
	}
	if bytes.HasPrefix(b, []byte(monoDirective)) {
		c.syncDirective(b, &c.mono, "#mono mono_ns clock_ns mono_ns")
		return
	}
	if bytes.HasPrefix(b, []byte(phaseDirective)) {
		c.phaseDirective(b)
		return
	}
	if len(b) == 0 || b[0] == '#' {
		return
	}
	var vals [5]int64
	nf := 0
	for i := 0; i < len(b); {
		if isSpace(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		if nf == len(vals) {
			c.fail(fmt.Errorf("stdout line %d has %d fields, want at most 5 (spawn_ns create_ns joined_ns parent_cpu child_cpu): %s", c.lineNo, len(bytes.Fields(b)), quote(b)))
			return
		}
		v, ok := parseInt(b[i:j])
		if !ok {
			c.fail(fmt.Errorf("stdout line %d is not integers (spawn_ns create_ns joined_ns parent_cpu child_cpu): %s", c.lineNo, quote(b)))
			return
		}
		vals[nf] = v
		nf++
		i = j
	}
	if nf == 4 {
		c.fail(fmt.Errorf("stdout line %d has 4 fields: the CPUs come in pairs (spawn_ns create_ns joined_ns parent_cpu child_cpu): %s", c.lineNo, quote(b)))
		return
	}
	if nf == 5 && !(validCPU(vals[3]) && validCPU(vals[4])) {
		c.fail(fmt.Errorf("stdout line %d has a CPU that is neither -1 (unknown) nor a CPU number: %s", c.lineNo, quote(b)))
		return
	}
	if c.max >= 0 && len(c.lines) >= c.max {
		c.extra++
		return
	}
	// kept, not vals, is what escapes: lines beyond max allocate nothing.
	kept := [3]int64{vals[0], vals[1], vals[2]}
	l := Line{SpawnNS: kept[0]}
	if nf > 1 {
		l.CreateNS = &kept[1]
	}
	if nf > 2 {
		l.JoinedNS = &kept[2]
	}
	if nf == 5 {
		l.ParentCPU, l.ChildCPU = cpu(vals[3]), cpu(vals[4])
	}
	c.lines = append(c.lines, l)
}

// CPUDirective is the "#cpu" line (with its line end) by which a host
// gives spawn k's CPUs (k from 1, in spawn order; -1 when unknown).
func CPUDirective(k, parentCPU, childCPU int) string {
	return fmt.Sprintf("%s%d %d %d\n", cpuDirective, k, parentCPU, childCPU)
}

// maxCPU bounds a CPU number: Linux's own limit is 8192.
const maxCPU = 1 << 20

// validCPU: a CPU field is -1 (unknown) or a CPU number.
func validCPU(v int64) bool { return v >= -1 && v < maxCPU }

// cpu is a valid CPU field as kept: nil when unknown.
func cpu(v int64) *int32 {
	if v < 0 {
		return nil
	}
	x := int32(v)
	return &x
}

// directive parses a "#cpu K parent_cpu child_cpu" line.
func (c *Collector) directive(b []byte) {
	f := bytes.Fields(b[len(cpuDirective):])
	bad := func() {
		c.fail(fmt.Errorf("stdout line %d is not a CPU directive (#cpu K parent_cpu child_cpu, K >= 1, a CPU -1 when unknown): %s", c.lineNo, quote(b)))
	}
	if len(f) != 3 {
		bad()
		return
	}
	var v [3]int64
	for i := range f {
		var ok bool
		if v[i], ok = parseInt(f[i]); !ok {
			bad()
			return
		}
	}
	if v[0] < 1 || !validCPU(v[1]) || !validCPU(v[2]) {
		bad()
		return
	}
	if c.max >= 0 && (v[0] > int64(c.max) || len(c.cpus) >= c.max) {
		return // about a spawn beyond those kept
	}
	c.cpus = append(c.cpus, placement{k: v[0], parent: cpu(v[1]), child: cpu(v[2])})
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// ParseDigits parses up to 19 decimal digits (no sign) without the
// allocation of strconv: for readers of every line a process prints, or
// of every /proc/PID/stat.
func ParseDigits(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		u = u*10 + uint64(d-'0')
	}
	return u, true
}

// parseInt parses a decimal int64 without the allocation of
// strconv.ParseInt(string(b)): the Collector sees every line a benchmark
// prints, however many.
func parseInt(b []byte) (int64, bool) {
	neg := false
	switch {
	case len(b) > 0 && b[0] == '-':
		neg, b = true, b[1:]
	case len(b) > 0 && b[0] == '+':
		b = b[1:]
	}
	u, ok := ParseDigits(b)
	switch {
	case !ok:
		return 0, false
	case !neg && u > math.MaxInt64:
		return 0, false
	case neg && u > math.MaxInt64+1:
		return 0, false
	case neg:
		return -int64(u), true
	}
	return int64(u), true
}

// quote repeats the start of a bad line in an error message.
func quote(b []byte) string {
	if len(b) > quoted {
		return strconv.Quote(string(b[:quoted])) + "..."
	}
	return strconv.Quote(string(b))
}

// Close ends the stream: a last line without a line end is parsed. Writes
// after Close are ignored.
func (c *Collector) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if c.err != nil {
		return
	}
	if c.skip {
		c.lineNo++
		c.fail(fmt.Errorf("stdout line %d is longer than %d bytes: not the spawn protocol (c/sb.h)", c.lineNo, MaxLineBytes))
		return
	}
	if len(c.partial) > 0 {
		c.line(c.partial)
		c.partial = nil
	}
}

// Lines returns the spawn lines kept, at most max, in the order printed,
// with the CPUs that "#cpu" directives gave them (a directive overrides
// the line's own CPU fields).
func (c *Collector) Lines() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	lines := append([]Line(nil), c.lines...)
	for _, p := range c.cpus {
		if p.k <= int64(len(lines)) {
			lines[p.k-1].ParentCPU, lines[p.k-1].ChildCPU = p.parent, p.child
		}
	}
	for _, a := range c.ats {
		if a.k <= int64(len(lines)) {
			v := a.ns
			lines[a.k-1].AtNS = &v
		}
	}
	for _, p := range c.phases {
		if p.k <= int64(len(lines)) {
			l := &lines[p.k-1]
			l.Phases = append(l.Phases, p.Phase)
		}
	}
	return lines
}

// Sync is the tightest "#sync" directive the benchmark printed, or nil.
func (c *Collector) Sync() *Sync {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sync == nil {
		return nil
	}
	s := *c.sync
	return &s
}

// Mono is the tightest "#mono" directive the host printed, or nil: its
// BeforeNS and AfterNS are CLOCK_MONOTONIC, its RealtimeNS the
// benchmark's clock between them.
func (c *Collector) Mono() *Sync {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mono == nil {
		return nil
	}
	s := *c.mono
	return &s
}

// Extra is the number of well-formed spawn lines printed beyond max: a
// benchmark that prints more spawns than it was asked for.
func (c *Collector) Extra() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.extra
}

// Err is the first malformed or overlong line, with its line number, or
// nil.
func (c *Collector) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Parse reads a whole output at once: every spawn line, up to the first
// malformed one, and that line's error.
func Parse(b []byte) ([]Line, error) {
	c := NewCollector(-1)
	_, _ = c.Write(b)
	c.Close()
	return c.Lines(), c.Err()
}

// clockDirective parses a "#clock step_ns read_ns" line: two integers
// >= 0.
func (c *Collector) clockDirective(b []byte) {
	f := bytes.Fields(b[len(clockDirective):])
	var v [2]int64
	ok := len(f) == 2
	for i := 0; ok && i < 2; i++ {
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		ok = err == nil && n >= 0
		v[i] = n
	}
	if !ok {
		c.fail(fmt.Errorf("stdout line %d is not a clock directive (#clock step_ns read_ns, both >= 0): %s", c.lineNo, quote(b)))
		return
	}
	c.clock = &ClockFacts{StepNS: v[0], ReadNS: v[1]}
}

// Clock is what the output's "#clock" directive said, or nil.
func (c *Collector) Clock() *ClockFacts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clock
}

// at is one "#at" directive: spawn k's call on the benchmark's clock.
type at struct {
	k, ns int64
}

// AtDirective is the "#at" line (with its line end) giving spawn k's
// call (k from 1) on the benchmark's clock.
func AtDirective(k int, ns int64) string {
	return fmt.Sprintf("%s%d %d\n", atDirective, k, ns)
}

// atDirective parses a "#at K call_ns" line: K >= 1, call_ns >= 0.
func (c *Collector) atDirective(b []byte) {
	f := bytes.Fields(b[len(atDirective):])
	var v [2]int64
	ok := len(f) == 2
	for i := 0; ok && i < 2; i++ {
		v[i], ok = parseInt(f[i])
	}
	if !ok || v[0] < 1 || v[1] < 0 {
		c.fail(fmt.Errorf("stdout line %d is not a call-time directive (#at K call_ns, K >= 1, call_ns >= 0): %s", c.lineNo, quote(b)))
		return
	}
	if c.max >= 0 && (v[0] > int64(c.max) || len(c.ats) >= c.max) {
		return // about a spawn beyond those kept
	}
	c.ats = append(c.ats, at{k: v[0], ns: v[1]})
}

// syncDirective parses a "#sync clock_ns realtime_ns clock_ns" (or
// "#mono") line into *into: the second bracketing reading not before the
// first; the tightest one is kept.
func (c *Collector) syncDirective(b []byte, into **Sync, form string) {
	_, rest, _ := bytes.Cut(b, []byte(" "))
	f := bytes.Fields(rest)
	var v [3]int64
	ok := len(f) == 3
	for i := 0; ok && i < 3; i++ {
		v[i], ok = parseInt(f[i])
	}
	if !ok || v[2] < v[0] {
		c.fail(fmt.Errorf("stdout line %d is not a clock-sync directive (%s, the second bracketing reading not before the first): %s", c.lineNo, form, quote(b)))
		return
	}
	s := Sync{BeforeNS: v[0], RealtimeNS: v[1], AfterNS: v[2]}
	if *into == nil || s.AfterNS-s.BeforeNS < (*into).AfterNS-(*into).BeforeNS {
		*into = &s
	}
}

// phaseAt is one "#phase" directive: a phase of spawn k.
type phaseAt struct {
	k int64
	Phase
}

// PhaseDirective is the "#phase" line (with its line end) saying where
// the host's phase name of spawn k (from 1) ended, ns on the benchmark's
// clock as read.
func PhaseDirective(k int, name string, endNS int64) string {
	return fmt.Sprintf("%s%d %s %d\n", phaseDirective, k, name, endNS)
}

// validPhaseName: a phase's name is a short word of lower-case letters,
// digits and underscores, as it becomes part of a column's values and of
// the report's JSON.
func validPhaseName(b []byte) bool {
	if len(b) == 0 || len(b) > 32 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// phaseDirective parses a "#phase K name end_ns" line: K >= 1, end_ns >= 0.
func (c *Collector) phaseDirective(b []byte) {
	f := bytes.Fields(b[len(phaseDirective):])
	var k, ns int64
	ok := len(f) == 3
	if ok {
		k, ok = parseInt(f[0])
	}
	if ok {
		ns, ok = parseInt(f[2])
	}
	if !ok || k < 1 || ns < 0 || !validPhaseName(f[1]) {
		c.fail(fmt.Errorf("stdout line %d is not a phase directive (#phase K name end_ns, K >= 1, name of [a-z0-9_], end_ns >= 0): %s", c.lineNo, quote(b)))
		return
	}
	if c.max >= 0 && (k > int64(c.max) || len(c.phases) >= c.max*MaxPhases) {
		return // about a spawn beyond those kept, or more than a host names
	}
	if c.phasesOf == nil {
		c.phasesOf = map[int64]int{}
	}
	if c.phasesOf[k] >= MaxPhases {
		return
	}
	c.phasesOf[k]++
	c.phases = append(c.phases, phaseAt{k: k, Phase: Phase{Name: string(f[1]), EndNS: ns}})
}
