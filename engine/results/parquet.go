package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"spawnbench/engine/atomicfile"

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
