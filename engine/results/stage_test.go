package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
)

// TestReadDirSaysWhatIsWrong: each way a directory fails to be a result
// set is an input error saying what to give instead; a set reads.
func TestReadDirSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	empty := filepath.Join(dir, "empty")
	other := filepath.Join(dir, "other")
	for _, d := range []string{empty, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{file, filepath.Join(other, "notes.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "result directory " + filepath.Join(dir, "missing") + " does not exist"},
		{file, file + " is a file; give the result directory that holds " + SamplesFile},
		{empty, "make them with `spawnbench run SPEC.cue -o " + empty + "`"},
		{other, "measure into a new directory: `spawnbench run SPEC.cue -o " + filepath.Join(other, "results") + "`"},
	}
	for _, c := range cases {
		_, err := ReadDir(c.dir, &bytes.Buffer{})
		var in *inputerr.Error
		if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadDir(%s): %v, want an input error saying %q", c.dir, err, c.want)
		}
	}
	set := filepath.Join(dir, "set")
	writeStaged(t, set, oneMachineSet("a", true))
	got, err := ReadDir(set, &bytes.Buffer{})
	if err != nil || len(got.Runs) != 1 {
		t.Errorf("ReadDir of a set: %v, %d runs; want 1", err, len(got.Runs))
	}
}

// TestFreeName: the first name of base, base-2, ... that is free.
func TestFreeName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if got := FreeName(dir, "summary", ".md"); got != filepath.Join(dir, "summary.md") {
		t.Errorf("in an empty directory: %s", got)
	}
	for _, n := range []string{"summary.md", "summary-2.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := FreeName(dir, "summary", ".md"); got != filepath.Join(dir, "summary-3.md") {
		t.Errorf("beside summary.md and summary-2.md: %s", got)
	}
}

// writeStaged writes set into out with a report file, failing t on error.
func writeStaged(t *testing.T, out string, set *Set) {
	t.Helper()
	report := func(staging string) error {
		return os.WriteFile(filepath.Join(staging, "report.md"), []byte("# merged\n"), 0o644)
	}
	if err := WriteStaged(out, set, report, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
}

// hidden lists the hidden entries of dir: what a staged write leaves.
func hidden(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWriteStaged: out appears whole (set and report) or not at all; a
// report that fails leaves the set and says so; an aborted one leaves
// nothing; out must be new or empty.
func TestWriteStaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "merged")
	writeStaged(t, out, oneMachineSet("a", true))
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Errorf("no report in the staged set: %v", err)
	}
	if back, err := Read(out); err != nil || len(back.Runs) != 1 {
		t.Errorf("read back: %v", err)
	}
	if h := hidden(t, dir); len(h) > 0 {
		t.Errorf("left beside %s: %v", out, h)
	}

	// A set is refused as the output, and so are a user's files.
	var in *inputerr.Error
	if err := WriteStaged(out, oneMachineSet("a", true), func(string) error { return nil }, &bytes.Buffer{}); !errors.As(err, &in) || !strings.Contains(err.Error(), "already holds a result set") {
		t.Errorf("over a set: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckMergeOut(file); !errors.As(err, &in) || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("over a file: %v", err)
	}
	if err := CheckMergeOut(dir); !errors.As(err, &in) || !strings.Contains(err.Error(), "already holds other files") {
		t.Errorf("into a directory of other files: %v", err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := CheckMergeOut(filepath.Join(dir, "link")); !errors.As(err, &in) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("through a link: %v", err)
	}

	// A report that fails: the set is written, the failure said.
	var warn bytes.Buffer
	failed := filepath.Join(dir, "failed")
	if err := WriteStaged(failed, oneMachineSet("a", true), func(string) error { return errors.New("disk on fire") }, &warn); err != nil {
		t.Errorf("a failed report failed the merge: %v", err)
	}
	if !Exists(failed) || !strings.Contains(warn.String(), "writing the report failed (the merged results are intact): disk on fire") {
		t.Errorf("failed report: set written %v, warning %q", Exists(failed), warn.String())
	}

	// An interrupted one: nothing in out, nothing hidden left.
	aborted := filepath.Join(dir, "aborted")
	if err := WriteStaged(aborted, oneMachineSet("a", true), func(string) error { return atomicfile.ErrAborted }, &bytes.Buffer{}); !errors.Is(err, atomicfile.ErrAborted) {
		t.Errorf("aborted report: %v", err)
	}
	if _, err := os.Lstat(aborted); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("aborted merge left %s: %v", aborted, err)
	}
	if h := hidden(t, dir); len(h) > 0 {
		t.Errorf("aborted merge left %v", h)
	}
}

// TestShardWarnings: a missing shard and shards split with different
// costs are named; a whole, consistent split says nothing.
func TestShardWarnings(t *testing.T) {
	t.Parallel()
	part := func(index, count int, costs string) Part {
		s := oneMachineSet("a", true)
		s.Provenance.Invocations[0].Shard = &Shard{Index: index, Count: count, Costs: costs}
		return Part{Set: s}
	}
	if w := ShardWarnings([]Part{part(0, 2, "ref"), part(1, 2, "ref")}); len(w) != 0 {
		t.Errorf("whole split: %q", w)
	}
	w := ShardWarnings([]Part{part(0, 3, "ref"), part(2, 3, "mine")})
	if len(w) != 2 || !strings.Contains(w[0], "the shards of 3 were split with different costs") || !strings.Contains(w[1], "no shard 1/3 in the merge") {
		t.Errorf("shards 0/3 (ref) and 2/3 (mine): %q", w)
	}
}
