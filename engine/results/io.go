package results

import (
	"context"
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
)

// Set is a whole result directory in memory.
type Set struct {
	Samples     []SpawnSample
	Runs        []ProcessRun
	Calibration []CalibrationCheck
	Provenance  Provenance
	// Generation counts the compactions of the set's files; every file of
	// one compaction carries the same generation.
	Generation int64
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
	return fmt.Sprintf("%s is not a spawnbench result file: %v", e.Path, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Write writes the whole set into dir as the next generation: samples,
// runs (always), calibration (when non-empty), then provenance.json. Each
// file is written to a temporary name and renamed into place; a kill
// between two renames leaves files of two generations, which Read
// reconciles through the journal (see Writer) or refuses.
func (s *Set) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	s.Generation++
	s.Provenance.Format = FormatVersion
	prov, err := json.Marshal(s.Provenance)
	if err != nil {
		return fmt.Errorf("encode provenance: %w", err)
	}
	meta := map[string]string{metaProvenance: string(prov), metaGeneration: strconv.FormatInt(s.Generation, 10)}
	if err := writeTable(filepath.Join(dir, SamplesFile), sampleColumns, s.Samples, meta); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(dir, RunsFile), runColumns, s.Runs, meta); err != nil {
		return err
	}
	if len(s.Calibration) > 0 {
		if err := writeTable(filepath.Join(dir, CalibrationFile), calibrationColumns, s.Calibration, meta); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(struct {
		Generation int64 `json:"generation"`
		Provenance
	}{s.Generation, s.Provenance}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode provenance: %w", err)
	}
	return atomicfile.WriteBytes(filepath.Join(dir, ProvenanceFile), append(js, '\n'))
}

func writeTable[T any](path string, cols []column[T], rows []T, meta map[string]string) error {
	schema := schemaOf(cols)
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range rows {
		for c, col := range cols {
			col.put(b.Field(c), &rows[i])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	return atomicfile.Write(path, func(f io.Writer) error {
		// Hide Close from the Parquet writer: the file is synced and closed
		// by atomicfile.Write.
		w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		for _, k := range []string{metaGeneration, metaProvenance} {
			if err := w.AppendKeyValueMetadata(k, meta[k]); err != nil {
				return err
			}
		}
		if err := w.Write(rec); err != nil {
			return err
		}
		return w.Close()
	})
}

// table is one Parquet file as read: its rows, generation and provenance.
type table[T any] struct {
	rows       []T
	generation int64
	prov       Provenance
	present    bool
}

// Read loads the result set in dir: the Parquet files plus any journal of
// processes not yet compacted into them (a run in progress or killed). A
// directory without samples.parquet and runs.parquet, or a file that is not
// spawnbench Parquet, gives a FormatError or an error naming the missing
// file. A set whose rows repeat one process is refused as bad input,
// naming the cell.
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
	optional := j != nil
	samples, err := readTable(filepath.Join(dir, SamplesFile), sampleColumns, optional)
	if err != nil {
		return nil, err
	}
	runs, err := readTable(filepath.Join(dir, RunsFile), runColumns, optional)
	if err != nil {
		return nil, err
	}
	cal, err := readTable(filepath.Join(dir, CalibrationFile), calibrationColumns, true)
	if err != nil {
		return nil, err
	}
	s := &Set{Samples: samples.rows, Runs: runs.rows, Calibration: cal.rows, Provenance: samples.prov, Generation: samples.generation}
	if j == nil {
		if runs.generation != samples.generation || (cal.present && cal.generation != samples.generation) {
			return nil, &FormatError{Path: dir, Err: fmt.Errorf("samples.parquet (generation %d), runs.parquet (%d) and calibration.parquet (%d) disagree and no journal is left to reconcile them", samples.generation, runs.generation, cal.generation)}
		}
	} else {
		// Files still at the journal's base generation lack its records;
		// files one past it were compacted from the journal already.
		next := j.base + 1
		for name, g := range map[string]int64{SamplesFile: samples.generation, RunsFile: runs.generation} {
			if g != j.base && g != next {
				return nil, &FormatError{Path: filepath.Join(dir, name), Err: fmt.Errorf("generation %d, but the journal extends generation %d", g, j.base)}
			}
		}
		if !samples.present {
			s.Provenance = Provenance{Format: FormatVersion}
		}
		j.apply(s, applyTo{
			samples:     samples.generation == j.base,
			runs:        runs.generation == j.base,
			calibration: !cal.present || cal.generation == j.base,
			provenance:  samples.generation == j.base,
		})
		s.Generation = max(samples.generation, runs.generation)
	}
	fillMachines(s)
	fillClockSteps(s)
	if err := checkUnique(s); err != nil {
		return nil, err
	}
	return s, nil
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

// checkUnique refuses a set that holds one process twice: one cell is one
// measurement.
func checkUnique(s *Set) error {
	type key struct {
		machine, env, mode string
		n                  int32
		process            int32
		warmup             bool
	}
	seen := map[key]bool{}
	for _, r := range s.Runs {
		k := key{r.Machine, r.Environment, r.Mode, r.N, r.Process, r.Warmup}
		if seen[k] {
			return inputerr.New("the result set holds process %d of cell %s (machine %s) twice: a cell must be measured once per machine; re-measure it into a new directory", r.Process, CellKey(r.Environment, r.Mode, int64(r.N)), r.Machine)
		}
		seen[k] = true
	}
	return nil
}

// Exists reports whether dir holds a result set (or the journal of one).
func Exists(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, RunsFile)); err == nil {
		return true
	}
	j, err := readJournal(filepath.Join(dir, JournalFile))
	return j != nil || err != nil
}

// addedInFormat2 are the columns that sets of format 1 lack.
var addedInFormat2 = map[string]bool{
	"invocation": true, "seq": true, "user_ns": true, "sys_ns": true, "max_rss_bytes": true,
	"ctx_switches_involuntary": true, "others_cpu_ns": true, "steal_ns": true,
}

func readTable[T any](path string, cols []column[T], optional bool) (table[T], error) {
	var t table[T]
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if optional {
				return t, nil
			}
			return t, fmt.Errorf("%s is missing: not a spawnbench result directory (run `spawnbench run SPEC.cue` to make one): %w", path, os.ErrNotExist)
		}
		return t, err
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
