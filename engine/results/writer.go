package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/protocol"
)

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
	return w.ProcessTraced(run, spawns, nil)
}

// ProcessTraced is Process for a traced process: traces holds each
// spawn's trace, in spawn order (nil for none).
func (w *Writer) ProcessTraced(run ProcessRun, spawns []protocol.Line, traces []SpawnTrace) error {
	values := make([][3]*int64, len(spawns))
	spawnNS := make([]int64, len(spawns))
	for i, s := range spawns {
		values[i] = [3]*int64{&s.SpawnNS, s.CreateNS, s.JoinedNS}
		spawnNS[i] = s.SpawnNS
	}
	run.Summarize(spawnNS)
	return w.record(record{Kind: "process", Run: &run, Spawns: values, CPUs: cpusOf(spawns), Trace: traces})
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
