// Package atomicfile is the one way spawnbench writes a file.
//
// This package is opinionated: a file is written whole to a temporary name
// beside its destination, synced, and renamed over it (the directory
// synced too), so a reader, a run killed half-way or a machine that
// crashed sees the old file or the new one, never a torn one.
// Temporary names are "." + the destination's name + TempMarker + random,
// so Clean removes what a killed writer left behind and nothing else (a
// user's own ".x.tmp-1" beside a result set is not ours). Abort ends the
// process's writes in flight on an interrupt, so a Ctrl-C leaves no
// temporary file either.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// TempMarker is in the name of every temporary file (and directory) that
// spawnbench makes, and only in theirs.
const TempMarker = ".spawnbench-tmp-"

// ErrAborted is the error of a write that Abort ended.
var ErrAborted = errors.New("interrupted")

// inFlight is the process's temporary files not yet renamed, so that Abort
// can remove them.
var inFlight = struct {
	sync.Mutex
	names   map[string]bool
	aborted bool
}{names: map[string]bool{}}

// TempPattern is the os.CreateTemp pattern of a temporary file or
// directory that stands for path.
func TempPattern(path string) string {
	return "." + filepath.Base(path) + TempMarker + "*"
}

// Write writes through fill to a temporary file beside path and renames it
// over path.
func Write(path string, fill func(w io.Writer) error) error {
	inFlight.Lock()
	if inFlight.aborted {
		inFlight.Unlock()
		return fmt.Errorf("write %s: %w", path, ErrAborted)
	}
	f, err := os.CreateTemp(filepath.Dir(path), TempPattern(path))
	if err != nil {
		inFlight.Unlock()
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	inFlight.names[tmp] = true
	inFlight.Unlock()
	done := func() {
		inFlight.Lock()
		delete(inFlight.names, tmp)
		inFlight.Unlock()
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		done()
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	inFlight.Lock()
	if err == nil && inFlight.aborted {
		err = ErrAborted
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	delete(inFlight.names, tmp)
	inFlight.Unlock()
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir survive a crash of the machine: without
// it the new name may be lost though the file's data was synced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
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

// Abort removes the temporary files of the writes in flight and makes
// every later Write of the process fail with ErrAborted without creating
// one: the destinations keep their old contents. It is for an interrupt
// that ends the process.
func Abort() {
	inFlight.Lock()
	defer inFlight.Unlock()
	inFlight.aborted = true
	for name := range inFlight.names {
		os.Remove(name)
	}
}

// Rename renames a whole temporary file or directory into place, unless
// Abort came first (ErrAborted): after an Abort nothing new appears.
func Rename(tmp, path string) error {
	inFlight.Lock()
	defer inFlight.Unlock()
	if inFlight.aborted {
		return ErrAborted
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// IsTemp reports whether name (a base name) is a temporary file or
// directory of spawnbench's.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, TempMarker)
}

// Clean removes the temporary files that a killed writer left in dir (not
// in its subdirectories), and only those.
func Clean(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if n := e.Name(); IsTemp(n) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}
