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
	"sync"
	"time"
	"unicode/utf8"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/protocol"
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
	Run    *ProcessRun `json:"run,omitempty"`
	Spawns [][3]*int64 `json:"spawns,omitempty"` // spawn_ns, create_ns, joined_ns
	CPUs   [][2]*int32 `json:"cpus,omitempty"`   // parent_cpu, child_cpu; absent when none is known
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
			s.Samples = append(s.Samples, samplesOf(*r.Run, r.Spawns, r.CPUs)...)
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
// (parent_cpu, child_cpu).
func samplesOf(run ProcessRun, spawns [][3]*int64, cpus [][2]*int32) []SpawnSample {
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
		out[t].ClockTrusted = coherent(out[t])
	}
	return out
}

// Writer is the one writer of a result directory. It holds the
// directory's lock from Open to Close, appends each finished process to
// the journal (fsynced within a second) and compacts the
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
	// syncMu guards synced and syncLater, the last sync of the journal
	// and the timer of the next (see journalSyncEvery).
	syncMu    sync.Mutex
	synced    time.Time
	syncLater *time.Timer
}

// Open takes dir's lock (creating dir), removes temporary files a killed
// writer left, loads the set already there (journal included), compacts
// it, and starts a new journal. A directory locked by another live
// spawnbench gives a *LockedError; one whose files are not one whole set
// (Read) is refused, so nothing measured is replaced; a directory that
// holds other things but no set, and an -o that is a dangling or looping
// symbolic link or a file, are refused as bad input.
func Open(dir string) (*Writer, error) {
	created, err := checkOutputDir(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create result directory: %w", err)
	}
	lock, err := TakeLock(dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, lock: lock, created: created, set: &Set{ID: NewID(), Provenance: Provenance{Format: FormatVersion}}}
	if err := w.open(); err != nil {
		lock.Release()
		return nil, err
	}
	return w, nil
}

// checkOutputDir says whether dir is to be created, or why it cannot be
// a result directory.
func checkOutputDir(dir string) (created bool, err error) {
	lst, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	} else if err != nil {
		return false, fmt.Errorf("result directory %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if lst.Mode()&os.ModeSymlink != 0 && err != nil {
		target, _ := os.Readlink(dir)
		why := "points to " + target + ", which does not exist"
		if !errors.Is(err, os.ErrNotExist) {
			why = "cannot be followed (" + err.Error() + "; a loop of links?)"
		}
		return false, inputerr.New("-o %s is a symbolic link that %s; remove the link, point it at a directory, or give another -o", dir, why)
	} else if err != nil {
		return false, fmt.Errorf("result directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return false, inputerr.New("-o %s is a file, not a directory; give a new directory for the result set", dir)
	}
	if Exists(dir) {
		return false, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("result directory %s: %w", dir, err)
	}
	for _, e := range entries {
		if n := e.Name(); !Reserved(n) && !atomicfile.IsTemp(n) {
			return false, inputerr.New("-o %s already holds other files (%s) but no result set; spawnbench writes only into a new or empty directory or its own result set: choose another -o, e.g. -o %s", dir, n, filepath.Join(dir, "results"))
		}
	}
	return false, nil
}

func (w *Writer) open() error {
	// Temporary files of a killed writer: the set's own, and the report's
	// (its plots live in plots/, a set of many machines' in
	// plots/MACHINE/); nowhere else, and only spawnbench's.
	dirs := []string{w.dir, filepath.Join(w.dir, "plots")}
	if entries, err := os.ReadDir(dirs[1]); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(dirs[1], e.Name()))
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
		if set.ID == "" {
			set.ID = NewID() // a set written before IDs gets one now
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
	return w.append(record{Kind: "base", Base: w.set.Generation, Set: w.set.ID})
}

// journalSyncEvery groups the journal's fsyncs. A written record
// survives a SIGKILL of spawnbench without one (the kernel has it); only a
// crash of the machine needs the sync, and one per process cost about as
// much as the runner's whole supervision. So process records are synced
// at most once per journalSyncEvery, and no later than journalSyncEvery
// after they are written; every other record (an invocation's start, its
// end, a skip) is synced at once.
const journalSyncEvery = time.Second

// append writes one record and syncs it to disk (see journalSyncEvery).
func (w *Writer) append(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode journal record: %w", err)
	}
	if _, err := w.journal.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to journal: %w", err)
	}
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if r.Kind == "process" && time.Since(w.synced) < journalSyncEvery {
		if w.syncLater == nil {
			f := w.journal
			w.syncLater = time.AfterFunc(journalSyncEvery, func() {
				w.syncMu.Lock()
				defer w.syncMu.Unlock()
				_ = f.Sync() // a compacted journal is closed: nothing to sync
				w.synced, w.syncLater = time.Now(), nil
			})
		}
		return nil
	}
	if err := w.journal.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	w.synced = time.Now()
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

// Process records one finished process and the spawns it printed, in
// spawn order. The process's summary (Samples, FirstSpawnNS,
// TypicalSpawnNS, SpawnLogVar) is computed here, from the spawns
// (ProcessRun.Summarize), and the sample rows are built from the record
// when it is applied (samplesOf): each in one place.
func (w *Writer) Process(run ProcessRun, spawns []protocol.Line) error {
	values := make([][3]*int64, len(spawns))
	spawnNS := make([]int64, len(spawns))
	for i, s := range spawns {
		values[i] = [3]*int64{&s.SpawnNS, s.CreateNS, s.JoinedNS}
		spawnNS[i] = s.SpawnNS
	}
	run.Summarize(spawnNS)
	return w.record(record{Kind: "process", Run: &run, Spawns: values, CPUs: cpusOf(spawns)})
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
	if len(w.set.Damaged) > 0 && w.set.DamagedKept == "" {
		// Before the journal that holds them goes.
		kept, err := keepDamaged(w.dir, w.set.Damaged)
		if err != nil {
			return err
		}
		w.set.DamagedKept = kept
	}
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
	set.Generation, set.ID = w.set.Generation, w.set.ID
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
