package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"spawnbench/engine/inputerr"
)

// ReadDir reads one result directory for a report, a comparison or a
// merge, turning every way it can fail to be one into an input error
// that says what was expected. A set whose data is still only in its
// journal (a first run killed, or still running) reads as what the
// journal holds, marked incomplete; damaged lines of a journal are
// skipped with a warning on warn.
func ReadDir(dir string, warn io.Writer) (*Set, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("result directory %s does not exist", dir)}
	} else if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	if !st.IsDir() {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s is a file; give the result directory that holds %s", dir, SamplesFile)}
	}
	set, err := Read(dir)
	var bad *FormatError
	for try := 0; try < 3 && errors.As(err, &bad) && journalled(dir); try++ {
		// A run writing the set may be between two renames of a
		// compaction: a moment later its files agree again.
		time.Sleep(200 * time.Millisecond)
		set, err = Read(dir)
	}
	switch {
	case errors.Is(err, ErrNoSet):
		how := "make them with `spawnbench run SPEC.cue -o " + dir + "`"
		if into := runInto(dir); into != dir {
			how = "it holds other files, so measure into a new directory: `spawnbench run SPEC.cue -o " + into + "`"
		}
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s holds no spawnbench results: %s is missing (%s)", dir, SamplesFile, how)}
	case errors.As(err, &bad):
		return nil, &inputerr.Error{Msg: bad.Error()}
	case err != nil:
		return nil, fmt.Errorf("read results in %s: %w", dir, err)
	}
	if w := set.DamageWarning(dir); w != "" {
		fmt.Fprintln(warn, "spawnbench: warning:", w)
	}
	return set, nil
}

// runInto is dir when a run may start there (new, or an empty
// directory), else a new directory inside it: a fix never names a
// directory that run refuses because it holds other files.
func runInto(dir string) string {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return FreeName(dir, "results", "")
	}
	return dir
}

// journalled: dir has a journal, so a writer may be compacting it.
func journalled(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, JournalFile))
	return err == nil
}

// FreeName is dir/base+ext, else dir/base-2+ext and so on: the first
// that does not exist, for a message that suggests a new file or
// directory.
func FreeName(dir, base, ext string) string {
	for i := 1; ; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}
