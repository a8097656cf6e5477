package results

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Key-value metadata keys of every Parquet file.
const (
	metaProvenance = "spawnbench.provenance"
	metaGeneration = "spawnbench.generation"
	metaSet        = "spawnbench.set"
)

// Set is a whole result directory in memory.
type Set struct {
	// ID names the set: random, made when the set is first written, and
	// carried by every one of its files (Parquet metadata, provenance.json,
	// the journal's header), so a file of another set is never read as
	// this one's. Empty for sets written before IDs, until rewritten.
	ID          string
	Samples     []SpawnSample
	Runs        []ProcessRun
	Calibration []CalibrationCheck
	Provenance  Provenance
	// Generation counts the compactions of the set's files; every file of
	// one compaction carries the same generation.
	Generation int64
	// Damaged are the journal lines Read skipped (see DamagedLine), and
	// DamagedKept the file a Writer saved them to ("" before): matter for
	// a warning (DamageWarning), never written into the set's own files.
	Damaged     []DamagedLine
	DamagedKept string
}

// DamageWarning says which lines of dir's journal Read skipped, what they
// held and where they are kept; "" when none were.
func (s *Set) DamageWarning(dir string) string { return damageWarning(s.Damaged, dir, s.DamagedKept) }

// NewID is a new random set ID.
func NewID() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("read random set ID: %v", err)) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// Clone is a copy of s that later writes to s do not reach (rows are
// values; the pointers inside them are never written after a row is
// made).
func (s *Set) Clone() *Set {
	c := *s
	c.Samples = slices.Clone(s.Samples)
	c.Runs = slices.Clone(s.Runs)
	c.Calibration = slices.Clone(s.Calibration)
	c.Provenance.Invocations = slices.Clone(s.Provenance.Invocations)
	return &c
}

// FormatError says a file is not a spawnbench result file.
type FormatError struct {
	Path string
	Err  error
}

func (e *FormatError) Error() string {
	var m mismatch
	if errors.As(e.Err, &m) {
		return fmt.Sprintf("%s %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s is not a spawnbench result file: %v", e.Path, e.Err)
}

// mismatch is why a file does not belong with the rest of its set (or is
// missing); it reads after the file's path.
type mismatch struct{ error }

func mismatchf(format string, a ...any) error { return mismatch{fmt.Errorf(format, a...)} }

func (e *FormatError) Unwrap() error { return e.Err }

// Write writes the whole set into dir as the next generation:
// calibration, samples, runs, the cost summary (costs.json, which Read
// does not need: a stale one is made again by ReadCosts), then
// provenance.json, each stamped with the set's ID (made now if it has
// none) and the generation. Each file is written to a temporary name and
// renamed into place; a kill between two renames leaves files of two
// generations, which Read reconciles through the journal (see Writer) or
// refuses. Calibration goes first, even when empty, so that every file
// of an ID-stamped generation is there (a missing one is detected) from
// the first one renamed.
func (s *Set) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	if s.ID == "" {
		s.ID = NewID()
	}
	s.Generation++
	s.Provenance.Format = FormatVersion
	prov, err := json.Marshal(s.Provenance)
	if err != nil {
		return fmt.Errorf("encode provenance: %w", err)
	}
	meta := map[string]string{metaProvenance: string(prov), metaGeneration: strconv.FormatInt(s.Generation, 10), metaSet: s.ID}
	if err := writeTable(filepath.Join(dir, CalibrationFile), calibrationColumns, s.Calibration, meta); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(dir, SamplesFile), sampleColumns, s.Samples, meta); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(dir, RunsFile), runColumns, s.Runs, meta); err != nil {
		return err
	}
	if err := writeCosts(dir, s); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Set        string `json:"set"`
		Generation int64  `json:"generation"`
		Provenance
	}{s.ID, s.Generation, s.Provenance}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode provenance: %w", err)
	}
	return atomicfile.WriteBytes(filepath.Join(dir, ProvenanceFile), append(js, '\n'))
}

func writeTable[T any](path string, cols []column[T], rows []T, meta map[string]string) error {
	return atomicfile.Write(path, func(f io.Writer) error { return encodeTable(f, cols, rows, meta) })
}

// encodeTable writes rows as one Parquet file to w, with meta's keys as
// its key-value metadata.
func encodeTable[T any](f io.Writer, cols []column[T], rows []T, meta map[string]string) error {
	rec := recordOf(cols, rows)
	defer rec.Release()
	schema := rec.Schema()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	// Hide Close from the Parquet writer: a file is synced and closed by
	// its owner (atomicfile.Write).
	w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	for _, k := range []string{metaSet, metaGeneration, metaProvenance} {
		if err := w.AppendKeyValueMetadata(k, meta[k]); err != nil {
			return err
		}
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}

// recordOf is rows as one Arrow record of cols; the caller releases it.
func recordOf[T any](cols []column[T], rows []T) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schemaOf(cols))
	defer b.Release()
	for i := range rows {
		for c, col := range cols {
			col.put(b.Field(c), &rows[i])
		}
	}
	return b.NewRecordBatch()
}

// table is one Parquet file as read: its rows, set ID, generation and
// provenance.
type table[T any] struct {
	rows       []T
	set        string
	generation int64
	prov       Provenance
	present    bool
}

// ErrNoSet says a directory holds no file of a result set.
var ErrNoSet = errors.New("no spawnbench result set")

// provenanceFile is what Read checks of provenance.json: the set and
// generation it belongs to (the provenance itself travels in every
// Parquet file).
type provenanceFile struct {
	present    bool
	set        string
	generation int64
}

func readProvenanceFile(path string) (provenanceFile, error) {
	var p provenanceFile
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	} else if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	p.present = true
	var head struct {
		Set        string `json:"set"`
		Generation int64  `json:"generation"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		// Sets of format 1 kept flat strings here; only an ID-stamped set
		// needs this file whole, and it is refused below without an ID.
		return p, nil
	}
	p.set, p.generation = head.Set, head.Generation
	return p, nil
}

// setFile is one file of a set as Read found it.
type setFile struct {
	name       string
	present    bool
	set        string
	generation int64
}

// Read loads the result set in dir: the Parquet files plus any journal of
// processes not yet compacted into them (a run in progress or killed: its
// set reads as what the journal holds, and its invocation as never
// ended). Every file must belong to one set (one ID) and generation (or
// to the journal's base and the next, during a compaction); a file of
// another set, of another generation, or missing, gives a FormatError
// naming it; a directory holding none gives one that wraps ErrNoSet. A
// set whose rows repeat one process is refused as bad input, naming the
// cell. Sets written before IDs read as before.
func Read(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("result directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, &FormatError{Path: dir, Err: errors.New("it is a file; give the result directory that holds samples.parquet")}
	}
	j, err := readJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, err
	}
	samples, err := readTable(filepath.Join(dir, SamplesFile), sampleColumns)
	if err != nil {
		return nil, err
	}
	runs, err := readTable(filepath.Join(dir, RunsFile), runColumns)
	if err != nil {
		return nil, err
	}
	cal, err := readTable(filepath.Join(dir, CalibrationFile), calibrationColumns)
	if err != nil {
		return nil, err
	}
	pf, err := readProvenanceFile(filepath.Join(dir, ProvenanceFile))
	if err != nil {
		return nil, err
	}
	files := []setFile{
		{CalibrationFile, cal.present, cal.set, cal.generation},
		{SamplesFile, samples.present, samples.set, samples.generation},
		{RunsFile, runs.present, runs.set, runs.generation},
		{ProvenanceFile, pf.present, pf.set, pf.generation},
	}
	if err := checkFiles(dir, files, j); err != nil {
		return nil, err
	}
	s := &Set{ID: setID(files, j), Samples: samples.rows, Runs: runs.rows, Calibration: cal.rows, Provenance: samples.prov, Generation: samples.generation}
	if !samples.present {
		// A calibration alone, or a journal not yet compacted.
		s.Provenance, s.Generation = cal.prov, cal.generation
	}
	if j != nil {
		if !samples.present && !cal.present {
			s.Provenance = Provenance{Format: FormatVersion}
		}
		// Files still at the journal's base generation lack its records;
		// files one past it were compacted from the journal already.
		provGen := samples.generation
		if !samples.present {
			provGen = cal.generation
		}
		s.Damaged = j.damaged
		j.apply(s, applyTo{
			samples:     samples.generation == j.base,
			runs:        runs.generation == j.base,
			calibration: !cal.present || cal.generation == j.base, // sets before IDs lacked it until calibrated
			provenance:  provGen == j.base,
		})
		s.Generation = max(samples.generation, runs.generation, cal.generation)
	}
	fillMachines(s)
	fillSummaries(s)
	if fillClockSteps(s) {
		MarkClockTrust(s)
	}
	fillFamilies(s)
	if err := CheckUnique(dir, s); err != nil {
		return nil, err
	}
	return s, nil
}

// setID is the ID most of the set's files carry (the journal's on a tie),
// so that the one file that differs is the one named.
func setID(files []setFile, j *journal) string {
	count := map[string]int{}
	var order []string
	vote := func(id string) {
		if id == "" {
			return
		}
		if count[id] == 0 {
			order = append(order, id)
		}
		count[id]++
	}
	if j != nil {
		vote(j.set)
	}
	for _, f := range files {
		if f.present {
			vote(f.set)
		}
	}
	best := ""
	for _, id := range order {
		if count[id] > count[best] {
			best = id
		}
	}
	return best
}

// checkFiles refuses a directory whose files are not one set: a file of
// another set or generation, or a file missing. With a journal, files may
// be at its base generation or the next (a kill during compaction), and
// missing while the journal extends generation 0 (nothing compacted yet).
func checkFiles(dir string, files []setFile, j *journal) error {
	any, stamped := j != nil, false
	for _, f := range files {
		any = any || f.present
		stamped = stamped || f.set != ""
	}
	id := setID(files, j)
	if !any {
		// No fix here: run refuses a directory that holds other files,
		// and only the caller knows what the directory was for.
		return &FormatError{Path: dir, Err: fmt.Errorf("%w: %s is missing", ErrNoSet, SamplesFile)}
	}
	path := func(f setFile) string { return filepath.Join(dir, f.name) }
	for _, f := range files {
		switch {
		case !f.present || f.set == id:
		case f.set == "" && j != nil && f.generation == j.base:
			// Written before set IDs; the journal (with the ID) extends it.
		case f.set == "":
			return &FormatError{Path: path(f), Err: mismatchf("carries no set ID, but the other files of the set carry set ID %s: it is from another (older) result set; put back this set's own %s", id, f.name)}
		default:
			return &FormatError{Path: path(f), Err: mismatchf("belongs to result set %s, but the other files of %s to set %s: it was copied or moved here from another result set; put back this set's own %s, or read each set from its own directory", f.set, dir, id, f.name)}
		}
	}
	if j != nil && j.set != "" && j.set != id {
		return &FormatError{Path: filepath.Join(dir, JournalFile), Err: mismatchf("belongs to result set %s, but the other files of %s to set %s: it was copied or moved here from another result set; remove it (or put back this set's own journal)", j.set, dir, id)}
	}
	// Which files must be there: none while the journal extends
	// generation 0; all four once a writer with set IDs wrote one; samples
	// and runs for older sets (calibration was written only when made).
	required := map[string]bool{}
	if j == nil || j.base > 0 {
		if stamped {
			for _, f := range files {
				required[f.name] = true
			}
		} else {
			required[SamplesFile], required[RunsFile] = true, true
		}
	}
	for _, f := range files {
		if required[f.name] && !f.present {
			return &FormatError{Path: path(f), Err: mismatchf("is missing: the result set in %s is not whole without it; restore it from a copy of this set, or measure again into a new directory", dir)}
		}
	}
	if j == nil {
		gen, first := int64(0), ""
		for _, f := range files {
			if !f.present || f.name == ProvenanceFile && f.set == "" {
				continue
			}
			if first == "" {
				gen, first = f.generation, f.name
				continue
			}
			if f.generation != gen {
				return &FormatError{Path: path(f), Err: mismatchf("is at generation %d, but %s at generation %d: the files disagree and no journal is left to reconcile them (a file of an older or newer state of this set was put back); restore the set's files from one copy", f.generation, first, gen)}
			}
		}
		return nil
	}
	for _, f := range files {
		if !f.present || f.name == ProvenanceFile && f.set == "" {
			continue
		}
		if f.generation != j.base && f.generation != j.base+1 {
			return &FormatError{Path: path(f), Err: mismatchf("is at generation %d, but the journal extends generation %d: a file of another state of this set was put back; restore the set's files from one copy", f.generation, j.base)}
		}
	}
	return nil
}

// fillMachines gives rows written before the machine column the machine
// of the invocation that measured them.
func fillMachines(s *Set) {
	id := func(inv int32) string {
		if i := s.Provenance.Find(inv); i != nil {
			return i.Machine.Identity()
		}
		return ""
	}
	for i := range s.Samples {
		if s.Samples[i].Machine == "" {
			s.Samples[i].Machine = id(s.Samples[i].Invocation)
		}
	}
	for i := range s.Runs {
		if s.Runs[i].Machine == "" {
			s.Runs[i].Machine = id(s.Runs[i].Invocation)
		}
	}
}

// CheckUnique refuses a set that holds one spawn or one process twice:
// one (machine, environment, mode, n, process, thread) measured twice
// would be counted twice, and no statistic could say which run it came
// from. name is how the message names the set (its directory). It is
// the one check, made by Read, Merge and the reports alike.
func CheckUnique(name string, s *Set) error {
	type sampleKey struct {
		machine, env, mode string
		n, process, thread int32
		warmup             bool
	}
	seen := make(map[sampleKey]bool, len(s.Samples))
	for _, x := range s.Samples {
		k := sampleKey{x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Thread, x.Warmup}
		if seen[k] {
			return duplicateError(name, x.Machine, x.Environment, x.Mode, x.N, fmt.Sprintf("spawn (process %d, thread %d)", x.Process, x.Thread), x.Warmup)
		}
		seen[k] = true
	}
	type runKey struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	runs := make(map[runKey]bool, len(s.Runs))
	for _, x := range s.Runs {
		k := runKey{x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Warmup}
		if runs[k] {
			return duplicateError(name, x.Machine, x.Environment, x.Mode, x.N, fmt.Sprintf("process %d", x.Process), x.Warmup)
		}
		runs[k] = true
	}
	return nil
}

func duplicateError(name, machine, env, mode string, n int32, what string, warmup bool) error {
	if warmup {
		what = "warm-up " + what
	}
	on := ""
	if machine != "" {
		on = " (machine " + machine + ")"
	}
	return inputerr.New("%s holds cell %s twice%s: its %s appears more than once (duplicate (machine, environment, mode, n, process, thread) keys). "+
		"The cell was measured twice into one directory; no statistic can tell the runs apart. Re-measure it into a fresh directory (spawnbench run SPEC -o NEWDIR)",
		name, CellKey(env, mode, int64(n)), on, what)
}

// setFiles are the names of a set's own files (the journal included).
var setFiles = []string{SamplesFile, RunsFile, CalibrationFile, ProvenanceFile, JournalFile}

// Exists reports whether dir holds a result set, or any file of one (a
// set missing a file is still a set, refused by Read, never replaced).
func Exists(dir string) bool {
	for _, name := range setFiles {
		if name == JournalFile {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	// A journal killed before its header reached disk is a set of nothing.
	j, err := readJournal(filepath.Join(dir, JournalFile))
	return j != nil || err != nil
}

// Reserved reports whether name (a base name) is one a result set keeps
// for itself, which no other output may take.
func Reserved(name string) bool {
	return slices.Contains(setFiles, name) || name == LockFile || name == DamagedFile || name == CostsFile
}

// addedInFormat2 are the columns that sets of format 1 lack.
var addedInFormat2 = map[string]bool{
	"invocation": true, "seq": true, "user_ns": true, "sys_ns": true, "max_rss_bytes": true,
	"ctx_switches_involuntary": true, "others_cpu_ns": true, "steal_ns": true,
}

// readTable reads one Parquet file of a set; a missing file is a table
// that is not present.
func readTable[T any](path string, cols []column[T]) (table[T], error) {
	var t table[T]
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return t, nil
		}
		return t, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return t, &FormatError{Path: path, Err: err}
	}
	defer pf.Close()
	t.present = true
	legacy := map[string]string{}
	gen, prov := "", ""
	for _, kv := range pf.MetaData().KeyValueMetadata() {
		if kv.Value == nil {
			continue
		}
		switch k, ok := strings.CutPrefix(kv.Key, "spawnbench."); {
		case kv.Key == metaGeneration:
			gen = *kv.Value
		case kv.Key == metaProvenance:
			prov = *kv.Value
		case kv.Key == metaSet:
			t.set = *kv.Value
		case ok:
			legacy[k] = *kv.Value
		}
	}
	isLegacy := gen == "" && prov == ""
	if isLegacy {
		// Format 1: flat provenance, one invocation, no journal.
		t.prov = legacyProvenance(legacy)
	} else {
		if t.generation, err = strconv.ParseInt(gen, 10, 64); err != nil {
			return t, &FormatError{Path: path, Err: fmt.Errorf("generation %q: %w", gen, err)}
		}
		if err := json.Unmarshal([]byte(prov), &t.prov); err != nil {
			return t, &FormatError{Path: path, Err: fmt.Errorf("provenance: %w", err)}
		}
		if t.prov.Format > FormatVersion {
			return t, &FormatError{Path: path, Err: fmt.Errorf("format %d is newer than this spawnbench reads (%d); upgrade spawnbench", t.prov.Format, FormatVersion)}
		}
	}
	mem := memory.NewGoAllocator()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return t, &FormatError{Path: path, Err: err}
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return t, &FormatError{Path: path, Err: err}
	}
	defer tbl.Release()
	t.rows = make([]T, tbl.NumRows())
	for _, col := range cols {
		idx := tbl.Schema().FieldIndices(col.field.Name)
		if len(idx) == 0 {
			if isLegacy && addedInFormat2[col.field.Name] {
				continue // zero: invocation 0, seq 0, noise unknown
			}
			if col.field.Name == "machine" {
				continue // older sets: fillMachines takes it from provenance
			}
			if col.absentOK {
				continue
			}
			if addedWithHosts[col.field.Name] {
				continue // older sets: fillClockSteps
			}
			return t, &FormatError{Path: path, Err: fmt.Errorf("no column %q", col.field.Name)}
		}
		chunked := tbl.Column(idx[0]).Data()
		if err := checkType(col, chunked.DataType()); err != nil {
			return t, &FormatError{Path: path, Err: err}
		}
		row := 0
		for _, chunk := range chunked.Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				col.get(chunk, i, &t.rows[row])
				row++
			}
		}
	}
	return t, nil
}
