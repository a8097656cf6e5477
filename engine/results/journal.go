package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
)

// record is one line of the journal. Kind says which fields are set.
type record struct {
	Kind string `json:"k"`
	// base: the generation of the Parquet files this journal extends.
	Base int64 `json:"base,omitempty"`
	// invocation: a new invocation begins.
	Inv *Invocation `json:"inv,omitempty"`
	// process: one finished process and its spawns.
	Run    *ProcessRun `json:"run,omitempty"`
	Spawns [][3]*int64 `json:"spawns,omitempty"` // spawn_ns, create_ns, joined_ns
	// toolchain, skip, calibration, end: about invocation ID.
	ID          int32              `json:"id,omitempty"`
	Env         string             `json:"env,omitempty"`
	Text        string             `json:"text,omitempty"`
	Checks      []CalibrationCheck `json:"checks,omitempty"`
	Replace     bool               `json:"replace,omitempty"`
	EndedAt     *time.Time         `json:"ended_at,omitempty"`
	Interrupted bool               `json:"interrupted,omitempty"`
}

// journal is a journal file as read: its base generation and records.
type journal struct {
	base    int64
	records []record
}

// readJournal reads path; nil when there is none. A last line without its
// newline was cut by a kill mid-write and is ignored: its process is the
// one in flight, which is lost by design.
func readJournal(path string) (*journal, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	j := &journal{}
	whole := b
	for no := 1; len(b) > 0; no++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := b[:i]
		b = b[i+1:]
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, &FormatError{Path: path, Err: fmt.Errorf("line %d: %w", no, err)}
		}
		if no == 1 {
			if r.Kind != "base" {
				return nil, &FormatError{Path: path, Err: errors.New("line 1 is not the journal header")}
			}
			j.base = r.Base
			continue
		}
		j.records = append(j.records, r)
	}
	if !bytes.HasPrefix(whole, []byte(`{"k":"base"`)) || bytes.IndexByte(whole, '\n') < 0 {
		// Killed before its header reached disk: a journal of nothing.
		return nil, nil
	}
	return j, nil
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
			s.Samples = append(s.Samples, samplesOf(*r.Run, r.Spawns)...)
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

// samplesOf expands a journalled process into its sample rows.
func samplesOf(run ProcessRun, spawns [][3]*int64) []SpawnSample {
	out := make([]SpawnSample, len(spawns))
	for t, v := range spawns {
		out[t] = SpawnSample{
			Environment: run.Environment, Kind: run.Kind, Payload: run.Payload, Host: run.Host, Mode: run.Mode, N: run.N,
			Process: run.Process, Thread: int32(t), SpawnNS: *v[0], CreateNS: v[1], JoinedNS: v[2], ClockStepNS: run.ClockStepNS,
			Warmup: run.Warmup, Invocation: run.Invocation, Machine: run.Machine,
		}
		out[t].ClockTrusted = coherent(out[t])
	}
	return out
}

// Writer is the one writer of a result directory. It holds the
// directory's lock from Open to Close, appends each finished process to
// the journal (fsynced before the next process starts) and compacts the
// journal into the Parquet files.
type Writer struct {
	dir     string
	lock    *Lock
	set     *Set
	journal *os.File
	// pending counts journal records not yet compacted.
	pending int
	// created: Open made the directory, so Close removes it again when
	// nothing was recorded (bad input writes nothing).
	created bool
}

// Open takes dir's lock (creating dir), removes temporary files a killed
// writer left, loads the set already there (journal included), compacts
// it, and starts a new journal. A directory locked by another live
// spawnbench gives a *LockedError.
func Open(dir string) (*Writer, error) {
	_, statErr := os.Stat(dir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create result directory: %w", err)
	}
	lock, err := TakeLock(dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, lock: lock, created: created, set: &Set{Provenance: Provenance{Format: FormatVersion}}}
	if err := w.open(); err != nil {
		lock.Release()
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	// Temporary files of a killed writer: the set's own, and the report's
	// (plots live one directory down).
	dirs := []string{w.dir}
	if entries, err := os.ReadDir(w.dir); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(w.dir, e.Name()))
			}
		}
	}
	for _, d := range dirs {
		if err := atomicfile.Clean(d); err != nil {
			return fmt.Errorf("remove temporary files of a killed run: %w", err)
		}
	}
	if Exists(w.dir) {
		set, err := Read(w.dir)
		if err != nil {
			return err
		}
		w.set = set
		if _, err := os.Stat(filepath.Join(w.dir, JournalFile)); err == nil {
			if err := w.compact(); err != nil {
				return err
			}
		}
	}
	return w.startJournal()
}

func (w *Writer) startJournal() error {
	f, err := os.OpenFile(filepath.Join(w.dir, JournalFile), os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("create journal: %w", err)
	}
	w.journal, w.pending = f, 0
	return w.append(record{Kind: "base", Base: w.set.Generation})
}

// append writes one record and syncs it to disk.
func (w *Writer) append(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode journal record: %w", err)
	}
	if _, err := w.journal.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to journal: %w", err)
	}
	if err := w.journal.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	return nil
}

// record appends r to the journal and applies it to the set in memory.
func (w *Writer) record(r record) error {
	if err := w.append(r); err != nil {
		return err
	}
	r.applyTo(w.set, applyTo{true, true, true, true})
	w.pending++
	return nil
}

// Set is the result set as written so far.
func (w *Writer) Set() *Set { return w.set }

// Dir is the result directory.
func (w *Writer) Dir() string { return w.dir }

// Begin records a new invocation, giving it the next ID, and returns it.
func (w *Writer) Begin(inv Invocation) (int32, error) {
	inv.ID = w.set.Provenance.NextID()
	return inv.ID, w.record(record{Kind: "invocation", Inv: &inv})
}

// Process records one finished process and its samples (in spawn order).
func (w *Writer) Process(run ProcessRun, samples []SpawnSample) error {
	spawns := make([][3]*int64, len(samples))
	for i, s := range samples {
		spawns[i] = [3]*int64{&s.SpawnNS, s.CreateNS, s.JoinedNS}
	}
	return w.record(record{Kind: "process", Run: &run, Spawns: spawns})
}

// Toolchain records the toolchain version an environment was built with.
func (w *Writer) Toolchain(id int32, env, version string) error {
	return w.record(record{Kind: "toolchain", ID: id, Env: env, Text: version})
}

// Skip records why an environment was not run.
func (w *Writer) Skip(id int32, env, why string) error {
	return w.record(record{Kind: "skip", ID: id, Env: env, Text: why})
}

// Calibration records clock checks of env; replace drops env's older
// checks first (the first checks of env in an invocation).
func (w *Writer) Calibration(env string, checks []CalibrationCheck, replace bool) error {
	return w.record(record{Kind: "calibration", Env: env, Checks: checks, Replace: replace})
}

// End records the end of invocation id and compacts the journal into the
// Parquet files. It may be called again to amend (an interrupt during the
// report after a finished run).
func (w *Writer) End(id int32, interrupted bool) error {
	now := time.Now().UTC()
	if err := w.record(record{Kind: "end", ID: id, EndedAt: &now, Interrupted: interrupted}); err != nil {
		return err
	}
	if err := w.compact(); err != nil {
		return err
	}
	return w.startJournal()
}

// compact writes the whole set as the next generation and only then drops
// the journal, so that a kill at any moment leaves either the journal and
// files of its base or next generation, or files of one generation.
func (w *Writer) compact() error {
	MarkClockTrust(w.set)
	if err := w.set.Write(w.dir); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if w.journal != nil {
		w.journal.Close()
		w.journal = nil
	}
	if err := os.Remove(filepath.Join(w.dir, JournalFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove compacted journal: %w", err)
	}
	return nil
}

// Import makes set the directory's result set, written whole as its
// next generation (a merge writes this way). The directory must hold no
// set yet: nothing measured is ever replaced.
func (w *Writer) Import(set *Set) error {
	if len(w.set.Provenance.Invocations) > 0 || len(w.set.Runs) > 0 || len(w.set.Samples) > 0 {
		return inputerr.New("%s already holds a result set; write the merge into a new directory", w.dir)
	}
	set.Generation = w.set.Generation
	w.set = set
	if err := w.compact(); err != nil {
		return err
	}
	return w.startJournal()
}

// Close compacts what the journal holds and releases the lock.
func (w *Writer) Close() error {
	var err error
	if w.pending > 0 {
		err = w.compact()
	} else if w.journal != nil {
		w.journal.Close()
		if rerr := os.Remove(filepath.Join(w.dir, JournalFile)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = fmt.Errorf("remove empty journal: %w", rerr)
		}
	}
	w.journal = nil
	w.lock.Release()
	if w.created && len(w.set.Provenance.Invocations) == 0 {
		os.Remove(filepath.Join(w.dir, LockFile))
		os.Remove(w.dir) // only if empty
	}
	return err
}

// MarkClockTrust sets each sample's ClockTrusted: false when it breaks
// 0 <= spawn_ns <= joined_ns or its environment failed a calibration check
// in the same set.
//
// A check speaks for the machine it ran on: in a set merged from several
// machines, one machine's failed clock does not mark another's samples.
// A check whose machine is unknown speaks for every machine.
func MarkClockTrust(set *Set) {
	type key struct{ machine, env string }
	failed := map[key]bool{}
	for _, c := range set.Calibration {
		if !c.Pass {
			m := ""
			if inv := set.Provenance.Find(c.Invocation); inv != nil {
				m = inv.Machine.Identity()
			}
			failed[key{m, c.Environment}] = true
		}
	}
	for i := range set.Samples {
		s := &set.Samples[i]
		bad := failed[key{"", s.Environment}] || failed[key{s.Machine, s.Environment}]
		if s.Machine == "" {
			// A sample of unknown machine: any machine's failure counts.
			for k := range failed {
				bad = bad || k.env == s.Environment
			}
		}
		s.ClockTrusted = coherent(*s) && !bad
	}
}

// coherent is the bracket 0 <= spawn_ns <= joined_ns, each bound
// allowed one step of the host's clock.
func coherent(s SpawnSample) bool {
	return s.SpawnNS >= -s.ClockStepNS && (s.JoinedNS == nil || s.SpawnNS <= *s.JoinedNS+s.ClockStepNS)
}
