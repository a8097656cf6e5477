package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"spawnbench/engine/atomicfile"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Provenance says where a result set came from: spec text and hash,
// spawnbench and toolchain versions, machine, pinning, times. Keys are
// flat strings; structured values are JSON.
type Provenance map[string]string

// Set is a whole result directory in memory.
type Set struct {
	Samples     []SpawnSample
	Runs        []ProcessRun
	Calibration []CalibrationCheck
	Provenance  Provenance
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

// Write writes every non-empty table of s into dir (samples and runs
// always), each to a temporary name first and then renamed into place.
func (s *Set) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	if err := writeTable(filepath.Join(dir, SamplesFile), sampleColumns, s.Samples, s.Provenance); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(dir, RunsFile), runColumns, s.Runs, s.Provenance); err != nil {
		return err
	}
	if len(s.Calibration) > 0 {
		if err := writeTable(filepath.Join(dir, CalibrationFile), calibrationColumns, s.Calibration, s.Provenance); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(s.Provenance, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ProvenanceFile), func(f io.Writer) error {
		_, err := f.Write(append(js, '\n'))
		return err
	})
}

func writeTable[T any](path string, cols []column[T], rows []T, prov Provenance) error {
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
		keys := make([]string, 0, len(prov))
		for k := range prov {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := w.AppendKeyValueMetadata("spawnbench."+k, prov[k]); err != nil {
				return err
			}
		}
		if err := w.Write(rec); err != nil {
			return err
		}
		return w.Close()
	})
}

// Read loads the result set in dir. A directory without samples.parquet
// and runs.parquet, or a file that is not spawnbench Parquet, gives a
// FormatError or an error naming the missing file.
func Read(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("result directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, &FormatError{Path: dir, Err: errors.New("it is a file; give the result directory that holds samples.parquet")}
	}
	s := &Set{}
	var prov Provenance
	if s.Samples, prov, err = readTable(filepath.Join(dir, SamplesFile), sampleColumns); err != nil {
		return nil, err
	}
	s.Provenance = prov
	if s.Runs, _, err = readTable(filepath.Join(dir, RunsFile), runColumns); err != nil {
		return nil, err
	}
	cal := filepath.Join(dir, CalibrationFile)
	if _, err := os.Stat(cal); err == nil {
		if s.Calibration, _, err = readTable(cal, calibrationColumns); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Exists reports whether dir holds a result set.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, RunsFile))
	return err == nil
}

// ReadCalibration loads dir's calibration.parquet, or nothing when there
// is none.
func ReadCalibration(dir string) ([]CalibrationCheck, error) {
	p := filepath.Join(dir, CalibrationFile)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	rows, _, err := readTable(p, calibrationColumns)
	return rows, err
}

func readTable[T any](path string, cols []column[T]) ([]T, Provenance, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s is missing: not a spawnbench result directory (run `spawnbench run SPEC.cue` to make one): %w", path, os.ErrNotExist)
		}
		return nil, nil, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, nil, &FormatError{Path: path, Err: err}
	}
	defer pf.Close()
	prov := Provenance{}
	for _, kv := range pf.MetaData().KeyValueMetadata() {
		if k, ok := strings.CutPrefix(kv.Key, "spawnbench."); ok && kv.Value != nil {
			prov[k] = *kv.Value
		}
	}
	mem := memory.NewGoAllocator()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return nil, nil, &FormatError{Path: path, Err: err}
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, nil, &FormatError{Path: path, Err: err}
	}
	defer tbl.Release()
	rows := make([]T, tbl.NumRows())
	for _, col := range cols {
		idx := tbl.Schema().FieldIndices(col.field.Name)
		if len(idx) == 0 {
			return nil, nil, &FormatError{Path: path, Err: fmt.Errorf("no column %q", col.field.Name)}
		}
		chunked := tbl.Column(idx[0]).Data()
		if err := checkType(col, chunked.DataType()); err != nil {
			return nil, nil, &FormatError{Path: path, Err: err}
		}
		row := 0
		for _, chunk := range chunked.Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				col.get(chunk, i, &rows[row])
				row++
			}
		}
	}
	return rows, prov, nil
}
