package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// record is one line of the journal. Kind says which fields are set.
type record struct {
	Kind string `json:"k"`
	// base: the generation of the Parquet files this journal extends, and
	// the ID of their set.
	Base int64  `json:"base,omitempty"`
	Set  string `json:"set,omitempty"`
	// invocation: a new invocation begins.
	Inv *Invocation `json:"inv,omitempty"`
	// process: one finished process and its spawns.
	Run    *ProcessRun  `json:"run,omitempty"`
	Spawns [][3]*int64  `json:"spawns,omitempty"` // spawn_ns, create_ns, joined_ns
	CPUs   [][2]*int32  `json:"cpus,omitempty"`   // parent_cpu, child_cpu; absent when none is known
	Trace  []SpawnTrace `json:"trace,omitempty"`  // each spawn's trace; absent when not traced
	// toolchain, skip, calibration, end: about invocation ID.
	ID          int32              `json:"id,omitempty"`
	Env         string             `json:"env,omitempty"`
	Text        string             `json:"text,omitempty"`
	Checks      []CalibrationCheck `json:"checks,omitempty"`
	Replace     bool               `json:"replace,omitempty"`
	EndedAt     *time.Time         `json:"ended_at,omitempty"`
	Interrupted bool               `json:"interrupted,omitempty"`
}

// journal is a journal file as read: its set, base generation and
// records, and the lines that could not be read.
type journal struct {
	set     string
	base    int64
	records []record
	damaged []DamagedLine
}

// DamagedLine is a line in the middle of a journal that is not a record
// (a disk or a hand damaged it): it is skipped, so that every other
// record is kept, and the processes it held are missing from the set
// (--resume measures them again).
type DamagedLine struct {
	// Line is its line number in the journal (the header is line 1), and
	// Base the generation that journal extended.
	Line int
	Base int64
	// Processes is how many process records it still shows the start of
	// ("k":"process"); -1 when it shows no record at all, so what it held
	// cannot be told.
	Processes int
	Text      []byte
}

// damagedLine describes a line that is not a record.
func damagedLine(no int, base int64, line []byte) DamagedLine {
	d := DamagedLine{Line: no, Base: base, Text: bytes.Clone(line), Processes: bytes.Count(line, []byte(`"k":"process"`))}
	if d.Processes == 0 && !bytes.Contains(line, []byte(`"k":"`)) {
		d.Processes = -1
	}
	return d
}

// valid says whether a record that parsed has what applying it needs.
func (r record) valid() bool {
	switch r.Kind {
	case "":
		return false
	case "invocation":
		return r.Inv != nil
	case "process":
		if r.Run == nil {
			return false
		}
		for _, v := range r.Spawns {
			if v[0] == nil {
				return false
			}
		}
	}
	return true // a kind of a later spawnbench is skipped when applied
}

// readJournal reads path; nil when there is none. A last line without its
// newline was cut by a kill mid-write and is ignored: its process is the
// one in flight, which is lost by design. A line in the middle that is not
// a record is skipped and listed in damaged; only a damaged header (line
// 1: without it the journal cannot be placed in its set) is a FormatError.
func readJournal(path string) (*journal, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	j := &journal{}
	whole, header := b, false
	for no := 1; len(b) > 0; no++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := b[:i]
		b = b[i+1:]
		var r record
		err := json.Unmarshal(line, &r)
		if no == 1 {
			if err != nil || r.Kind != "base" {
				break // refused below
			}
			j.base, j.set, header = r.Base, r.Set, true
			continue
		}
		if err != nil || !r.valid() {
			j.damaged = append(j.damaged, damagedLine(no, j.base, line))
			continue
		}
		j.records = append(j.records, r)
	}
	if !header {
		if i := bytes.IndexByte(whole, '\n'); i >= 0 {
			return nil, &FormatError{Path: path, Err: fmt.Errorf("line 1 is not the journal header (it reads %.60q); without it the journal cannot be placed in its set", whole[:i])}
		}
		// Killed before its header reached disk: a journal of nothing.
		return nil, nil
	}
	return j, nil
}

// damageWarning says which journal lines Read skipped and what they
// held; "" when none. kept names the file the lines were saved to, ""
// while they are still only in the journal.
func damageWarning(lines []DamagedLine, dir, kept string) string {
	if len(lines) == 0 {
		return ""
	}
	var nos []string
	procs, unknown := 0, 0
	for _, d := range lines {
		nos = append(nos, strconv.Itoa(d.Line))
		if d.Processes < 0 {
			unknown++
		} else {
			procs += d.Processes
		}
	}
	held := fmt.Sprintf("they held %d process(es)", procs)
	switch {
	case unknown == len(lines):
		held = "what they held cannot be told (they show no record)"
	case unknown > 0:
		held += fmt.Sprintf(", and what %d of them held cannot be told (they show no record)", unknown)
	}
	where := fmt.Sprintf("they stay in the journal until a run into %s moves them to %s", dir, filepath.Join(dir, DamagedFile))
	if kept != "" {
		where = "they are kept in " + kept
	}
	return fmt.Sprintf("%s: skipped damaged line(s) %s, which are not journal records; every other line is kept; %s, and are missing from the set (`spawnbench run SPEC -o %s --resume` measures missing processes again); %s",
		filepath.Join(dir, JournalFile), strings.Join(nos, ", "), held, dir, where)
}

// keepDamaged appends lines to dir's DamagedFile (synced), skipping those
// it already holds (a kill between saving and compacting), and returns
// its path.
func keepDamaged(dir string, lines []DamagedLine) (string, error) {
	path := filepath.Join(dir, DamagedFile)
	type entry struct {
		JournalBase int64  `json:"journal_base"`
		JournalLine int    `json:"journal_line"`
		Text        string `json:"text,omitempty"`
		Base64      []byte `json:"base64,omitempty"` // the line, when it is not UTF-8
	}
	have := map[[2]int64]bool{}
	if old, err := os.ReadFile(path); err == nil {
		for _, l := range bytes.Split(old, []byte{'\n'}) {
			var e entry
			if json.Unmarshal(l, &e) == nil {
				have[[2]int64{e.JournalBase, int64(e.JournalLine)}] = true
			}
		}
	}
	var out []byte
	for _, d := range lines {
		if have[[2]int64{d.Base, int64(d.Line)}] {
			continue
		}
		e := entry{JournalBase: d.Base, JournalLine: d.Line}
		if utf8.Valid(d.Text) {
			e.Text = string(d.Text)
		} else {
			e.Base64 = d.Text
		}
		b, err := json.Marshal(e)
		if err != nil {
			return "", fmt.Errorf("encode damaged journal line: %w", err)
		}
		out = append(append(out, b...), '\n')
	}
	if len(out) == 0 {
		return path, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", fmt.Errorf("keep damaged journal lines: %w", err)
	}
	_, err = f.Write(out)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("keep damaged journal lines in %s: %w", path, err)
	}
	return path, nil
}

// applyTo says which parts of a set still lack the journal's records.
type applyTo struct{ samples, runs, calibration, provenance bool }

func (j *journal) apply(s *Set, to applyTo) {
	for _, r := range j.records {
		r.applyTo(s, to)
	}
}

func (r record) applyTo(s *Set, to applyTo) {
	inv := func() *Invocation { return s.Provenance.Find(r.ID) }
	switch r.Kind {
	case "invocation":
		if to.provenance && r.Inv != nil {
			s.Provenance.Invocations = append(s.Provenance.Invocations, *r.Inv)
		}
	case "process":
		if to.runs {
			s.Runs = append(s.Runs, *r.Run)
		}
		if to.samples {
			s.Samples = append(s.Samples, samplesOf(*r.Run, r.Spawns, r.CPUs, r.Trace)...)
		}
	case "toolchain", "skip":
		if i := inv(); to.provenance && i != nil {
			m := &i.Toolchains
			if r.Kind == "skip" {
				m = &i.Skipped
			}
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[r.Env] = r.Text
		}
	case "calibration":
		if !to.calibration {
			return
		}
		if r.Replace {
			// A new calibration of an environment replaces its older verdicts.
			kept := s.Calibration[:0]
			for _, c := range s.Calibration {
				if c.Environment != r.Env {
					kept = append(kept, c)
				}
			}
			s.Calibration = kept
		}
		s.Calibration = append(s.Calibration, r.Checks...)
	case "end":
		if i := inv(); to.provenance && i != nil {
			i.EndedAt, i.Interrupted = r.EndedAt, r.Interrupted
		}
	}
}

// samplesOf expands a journalled process into its sample rows: the one
// place a sample is built, whether the process was just measured or is
// read back from a journal. cpus, when present, holds each spawn's
// (parent_cpu, child_cpu), and traces, when present, each spawn's trace.
func samplesOf(run ProcessRun, spawns [][3]*int64, cpus [][2]*int32, traces []SpawnTrace) []SpawnSample {
	out := make([]SpawnSample, len(spawns))
	for t, v := range spawns {
		out[t] = SpawnSample{
			Environment: run.Environment, Kind: run.Kind, Payload: run.Payload, Host: run.Host, Mode: run.Mode, N: run.N,
			Process: run.Process, Thread: int32(t), SpawnNS: *v[0], CreateNS: v[1], JoinedNS: v[2], ClockStepNS: run.ClockStepNS,
			Warmup: run.Warmup, Invocation: run.Invocation, Machine: run.Machine,
		}
		if t < len(cpus) {
			out[t].ParentCPU, out[t].ChildCPU = cpus[t][0], cpus[t][1]
		}
		if t < len(traces) {
			out[t].SpawnTrace = traces[t]
		}
		out[t].ClockTrusted = coherent(out[t])
	}
	return out
}
