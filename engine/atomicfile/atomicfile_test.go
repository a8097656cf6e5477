package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCleanRemovesOnlyItsOwn: Clean removes spawnbench's temporary files
// and no one else's (issue 20, item 11).
func TestCleanRemovesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	ours := filepath.Join(dir, ".samples.parquet"+TempMarker+"1")
	theirs := []string{filepath.Join(dir, ".notes.tmp-1"), filepath.Join(dir, "x.spawnbench-tmp-2")}
	for _, f := range append([]string{ours}, theirs...) {
		os.WriteFile(f, []byte("x"), 0o644)
	}
	if err := Clean(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ours); err == nil {
		t.Errorf("%s stays", ours)
	}
	for _, f := range theirs {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a file not ours was removed: %v", err)
		}
	}
}

// TestAbortLeavesNoTemporaryFile runs last: Abort ends every later write
// of the process. A write in flight leaves no temporary file and does not
// replace its destination; a later one creates nothing.
func TestAbortLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("new, half"))
		Abort() // an interrupt while the file is written
		return nil
	})
	if !errors.Is(err, ErrAborted) {
		t.Errorf("write in flight at Abort: %v", err)
	}
	if err := WriteBytes(filepath.Join(dir, "later.md"), []byte("x")); !errors.Is(err, ErrAborted) {
		t.Errorf("write after Abort: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("destination replaced: %q", b)
	}
}
