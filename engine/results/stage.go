package results

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
)

// CheckMergeOut is an input error unless out is new (or an empty
// directory): a merge never writes into another set or a user's files.
func CheckMergeOut(out string) error {
	lst, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if lst.Mode()&os.ModeSymlink != 0 {
		return inputerr.New("merge: -o %s is a symbolic link; give a new directory", out)
	}
	if !lst.IsDir() {
		return inputerr.New("merge: -o %s is a file; give a new directory", out)
	}
	if Exists(out) {
		return inputerr.New("merge: -o %s already holds a result set; write the merge into a new directory", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if len(entries) > 0 {
		return inputerr.New("merge: -o %s already holds other files (%s); write the merge into a new directory", out, entries[0].Name())
	}
	return nil
}

// WriteStaged writes the merged set into out, with the report that
// report writes into the directory it is given (named as out, where the
// set will be), all at once: everything is written into a hidden
// directory beside out, renamed to out when whole, so that out appears
// complete or not at all. An interrupt (atomicfile.Abort) removes the
// hidden directory, and a kill leaves only it, which the next merge into
// out removes. A report that fails otherwise is said on warn: the merged
// results are intact.
func WriteStaged(out string, merged *Set, report func(staging string) error, warn io.Writer) error {
	if err := CheckMergeOut(out); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("merge: create %s: %w", filepath.Dir(out), err)
	}
	removeStaleStaging(abs)
	staging, err := os.MkdirTemp(filepath.Dir(abs), atomicfile.TempPattern(abs))
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	defer os.RemoveAll(staging) // gone by the rename unless something failed
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	w, err := Open(staging)
	if err != nil {
		return err
	}
	if err := w.Import(merged); err != nil {
		w.Close()
		return err
	}
	if err := report(staging); errors.Is(err, atomicfile.ErrAborted) {
		w.Close()
		return err
	} else if err != nil {
		fmt.Fprintf(warn, "spawnbench: writing the report failed (the merged results are intact): %v\n", err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	// rename(2) replaces an empty directory and fails on any other.
	if err := atomicfile.Rename(staging, abs); errors.Is(err, atomicfile.ErrAborted) {
		return err
	} else if err != nil {
		return &inputerr.Error{Msg: fmt.Sprintf("merge: -o %s was filled by someone else meanwhile (%v); write the merge into a new directory", out, err)}
	}
	return nil
}

// removeStaleStaging removes the hidden directories that killed merges
// into out left (whose lock no live merge holds).
func removeStaleStaging(out string) {
	entries, _ := os.ReadDir(filepath.Dir(out))
	prefix := "." + filepath.Base(out) + atomicfile.TempMarker
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(filepath.Dir(out), e.Name())
		lock, err := TakeLock(dir)
		if err != nil {
			continue // a live merge's, or not ours to judge
		}
		lock.Release()
		os.RemoveAll(dir)
	}
}

// ShardWarnings says what may be wrong with the shards of one count
// being merged: split with different costs (cells may be missing, or
// measured twice), or a shard missing.
func ShardWarnings(parts []Part) []string {
	costs := map[int]map[string][]string{} // count -> costs -> shards
	seen := map[int]map[int]bool{}
	var invs []Invocation
	for _, p := range parts {
		invs = append(invs, p.Set.Provenance.Invocations...)
	}
	for _, inv := range invs {
		sh := inv.Shard
		if sh == nil {
			continue
		}
		if costs[sh.Count] == nil {
			costs[sh.Count], seen[sh.Count] = map[string][]string{}, map[int]bool{}
		}
		costs[sh.Count][sh.Costs] = append(costs[sh.Count][sh.Costs], sh.String())
		seen[sh.Count][sh.Index] = true
	}
	var out []string
	for _, count := range slices.Sorted(maps.Keys(costs)) {
		if len(costs[count]) > 1 {
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(costs[count])) {
				parts = append(parts, fmt.Sprintf("%s with costs %q", strings.Join(costs[count][c], ", "), c))
			}
			out = append(out, fmt.Sprintf("the shards of %d were split with different costs (%s): if they are one run, some cells may be missing or measured twice; run every shard with the same spawnbench and --costs", count, strings.Join(parts, "; ")))
		}
		var missing []string
		for k := range count {
			if !seen[count][k] {
				missing = append(missing, fmt.Sprintf("%d/%d", k, count))
			}
		}
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("no shard %s in the merge: its cells are missing; run it and merge again", strings.Join(missing, ", ")))
		}
	}
	return out
}

// Machines is how many machines measured s's processes.
func (s *Set) Machines() int {
	seen := map[string]bool{}
	for _, r := range s.Runs {
		seen[r.Machine] = true
	}
	return len(seen)
}
