package results

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
