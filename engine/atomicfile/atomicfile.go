// Package atomicfile is the one way spawnbench writes a file.
//
// This package is opinionated: a file is written whole to a temporary name
// beside its destination, synced, and renamed over it, so a reader (or a
// run killed half-way) sees the old file or the new one, never a torn one.
// Temporary names start with "." and contain ".tmp-", so Clean can remove
// what a killed writer left behind.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write writes through fill to a temporary file beside path and renames it
// over path.
func Write(path string, fill func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBytes writes b to path atomically.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Clean removes temporary files that a killed writer left in dir.
func Clean(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}
