package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/results"
)

// The reproductions of issue 20 (result-set integrity), each as the issue
// gives it, checked for what the issue says must happen instead.

const quickSpec = `name: "r"
environments: [{name: "native", kind: "native"}]
n: [4]
samples: min: 8
`

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if _, stderr, code := runCLI(t, args...); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantRefused runs args and wants exit 2 with every one of want in stderr.
func wantRefused(t *testing.T, args []string, want ...string) {
	t.Helper()
	_, stderr, code := runCLI(t, args...)
	if code != 2 {
		t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		return
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%v: stderr %q does not say %q", args, stderr, w)
		}
	}
}

// TestMissingOrSwappedFileIsNeverOverwritten: items 3 and 5. A set
// missing runs.parquet, or holding a file of another run of the same
// spec, is refused by run --resume, run, report, compare and merge (exit
// 2, naming the file), and nothing in it changes.
func TestMissingOrSwappedFileIsNeverOverwritten(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, quickSpec)
	r1, r2 := filepath.Join(dir, "r1"), filepath.Join(dir, "r2")
	mustRun(t, "run", p, "-o", r1)
	mustRun(t, "run", p, "-o", r2)
	samples := fileBytes(t, filepath.Join(r1, results.SamplesFile))
	os.Remove(filepath.Join(r1, results.RunsFile))
	missing := filepath.Join(r1, results.RunsFile)
	for _, args := range [][]string{
		{"run", p, "-o", r1, "--resume"},
		{"run", p, "-o", r1},
		{"report", r1},
		{"compare", r1, r2},
		{"merge", "-o", filepath.Join(dir, "m"), r1, r2},
	} {
		wantRefused(t, args, missing, "is missing")
	}
	if !bytes.Equal(samples, fileBytes(t, filepath.Join(r1, results.SamplesFile))) {
		t.Errorf("samples.parquet of the set missing runs.parquet was replaced")
	}
	// The other run's runs.parquet in r1: the same spec, another set.
	os.WriteFile(missing, fileBytes(t, filepath.Join(r2, results.RunsFile)), 0o644)
	for _, args := range [][]string{{"report", r1}, {"run", p, "-o", r1, "--resume"}} {
		wantRefused(t, args, missing, "belongs to result set")
	}
	if !bytes.Equal(samples, fileBytes(t, filepath.Join(r1, results.SamplesFile))) {
		t.Errorf("samples.parquet of the mixed set was replaced")
	}
}

// TestReportCannotBreakItsInput: item 4. -o onto a name a set keeps for
// itself is refused, and the set still reads afterwards.
func TestReportCannotBreakItsInput(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, quickSpec)
	set := filepath.Join(dir, "set")
	mustRun(t, "run", p, "-o", set)
	// journal.jsonl is not there between runs: its name is refused as
	// one the set keeps; the others, there, would be overwritten.
	wantRefused(t, []string{"report", set, "-o", filepath.Join(set, results.JournalFile)}, "keeps for its own files")
	wantRefused(t, []string{"report", set, "-o", filepath.Join(dir, results.JournalFile)}, "keeps for its own files")
	for _, name := range []string{results.CalibrationFile, results.SamplesFile, results.ProvenanceFile, results.LockFile} {
		wantRefused(t, []string{"report", set, "-o", filepath.Join(set, name)}, "would overwrite", "summary.")
	}
	mustRun(t, "report", set)
	mustRun(t, "run", p, "-o", set, "--resume")
	// Item 13: -o DIR/report.md is refused without suggesting itself;
	// -o DIR and a dangling or looping link say what they are.
	_, stderr, _ := runCLI(t, "report", set, "-o", filepath.Join(set, "report.md"))
	if i := strings.Index(stderr, "e.g. -o "); i < 0 || strings.Contains(stderr[i:], "report.md") {
		t.Errorf("refusal of -o DIR/report.md suggests %q", stderr)
	}
	wantRefused(t, []string{"report", set, "-o", set}, "is a directory")
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling"))
	os.Symlink("loop-b", filepath.Join(dir, "loop-a"))
	os.Symlink("loop-a", filepath.Join(dir, "loop-b"))
	for _, cmd := range [][]string{{"report", set, "-o"}, {"run", p, "-o"}} {
		wantRefused(t, append(cmd, filepath.Join(dir, "dangling")), "symbolic link", "does not exist")
		wantRefused(t, append(cmd, filepath.Join(dir, "loop-a")), "symbolic link", "loop")
	}
}

// TestForeignDirectoryIsLeftAlone: items 9 and 11. run and merge refuse
// a non-empty directory that holds no set, and a run into a set removes
// only spawnbench's own temporary files, never a user's ".*.tmp-*".
func TestForeignDirectoryIsLeftAlone(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, quickSpec)
	foreign := filepath.Join(dir, "mine")
	os.MkdirAll(filepath.Join(foreign, "sub"), 0o755)
	users := []string{filepath.Join(foreign, ".notes.tmp-1"), filepath.Join(foreign, "sub", ".x.tmp-2")}
	for _, f := range users {
		os.WriteFile(f, []byte("mine"), 0o644)
	}
	wantRefused(t, []string{"run", p, "-o", foreign}, "already holds other files")
	s0, s1 := filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	mustRun(t, "run", p, "-o", s0)
	mustRun(t, "run", p, "-o", s1)
	wantRefused(t, []string{"merge", "-o", foreign, s0, s1}, "already holds other files")
	// A user's files inside a result set.
	set := filepath.Join(dir, "set")
	mustRun(t, "run", p, "-o", set)
	os.MkdirAll(filepath.Join(set, "notes"), 0o755)
	users = append(users, filepath.Join(set, ".draft.tmp-1"), filepath.Join(set, "notes", ".x.tmp-3"), filepath.Join(set, "plots", ".y.tmp-4"))
	for _, f := range users[2:] {
		os.WriteFile(f, []byte("mine"), 0o644)
	}
	mustRun(t, "run", p, "-o", set, "--resume")
	// --plots replaces earlier plots, never a user's files.
	figures := filepath.Join(dir, "figures")
	mustRun(t, "report", set, "--plots", figures)
	mustRun(t, "report", set, "--plots", figures)
	wantRefused(t, []string{"report", set, "--plots", foreign}, "not a spawnbench plot")
	for _, f := range users {
		if b, err := os.ReadFile(f); err != nil || string(b) != "mine" {
			t.Errorf("a user's file %s: %q, %v", f, b, err)
		}
	}
}

// TestInterruptedMergeRunsAgain: item 9. A merge interrupted at any moment
// leaves nothing in OUT (no temporary file, lock or journal), exits 130,
// and the same merge then succeeds; a whole merge reads back.
func TestInterruptedMergeRunsAgain(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}, {name: "two", kind: "native"}]
n: [4]
samples: min: 8
`)
	s0, s1 := filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	mustRun(t, "run", p, "--shard", "0/2", "-o", s0)
	mustRun(t, "run", p, "--shard", "1/2", "-o", s1)
	interrupted := 0
	for i, after := range []time.Duration{5, 20, 40, 60, 80, 120, 160, 250, 3000} {
		out := filepath.Join(dir, "m", string(rune('a'+i)))
		cmd := startCLI(t, dir, "merge", "-o", out, s0, s1)
		time.Sleep(after * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		switch code {
		case 0:
			if _, err := results.Read(out); err != nil {
				t.Errorf("after %v: merge exit 0 but %v", after, err)
			}
		case 130, -1: // -1: the signal came before merge was listening
			interrupted++
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("after %v: an interrupted merge left %s", after, out)
			}
			mustRun(t, "merge", "-o", out, s0, s1)
		default:
			t.Errorf("after %v: merge exit %d (%v)", after, code, err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "m", ".*"+atomicfile.TempMarker+"*")); len(left) > 0 {
			t.Errorf("after %v: left %v", after, left)
		}
	}
	t.Logf("%d of 9 merges interrupted", interrupted)
	// What a SIGKILLed merge leaves (its hidden directory) is removed by
	// the next merge into the same OUT.
	stale := filepath.Join(dir, "m", ".z"+atomicfile.TempMarker+"123")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, results.JournalFile), []byte(`{"k":"base"}`+"\n"), 0o644)
	mustRun(t, "merge", "-o", filepath.Join(dir, "m", "z"), s0, s1)
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("a killed merge's hidden directory stays")
	}
}

// startCLI starts spawnbench with args in dir, with the package's cache.
func startCLI(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, _ := startLogged(t, dir, sharedCache(), args...)
	return cmd
}

// TestJournalIsAResult: item 6. A first run killed before any compaction
// (its data only in journal.jsonl) is reported, compared and merged as
// what it holds, marked INCOMPLETE; so is a first run still in progress.
func TestJournalIsAResult(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "long"
environments: [{name: "native", kind: "native"}, {name: "again", kind: "native"}]
n: [1]
samples: {min: 100000, pause: "2ms"}
`)
	var outs []string
	for shard := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("shard%d", shard))
		cmd, _ := startRun(t, dir, p, out, "--shard", fmt.Sprintf("%d/2", shard))
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		deadline := time.Now().Add(60 * time.Second)
		for {
			if set, err := results.Read(out); err == nil && len(set.Runs) >= 5 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the run recorded no 5 processes")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := os.Stat(filepath.Join(out, results.SamplesFile)); err == nil {
			t.Fatalf("samples.parquet exists already: not a journal-only set")
		}
		check := func(when string) {
			stdout, stderr, code := runCLI(t, "report", out)
			if code != 0 || !strings.Contains(stdout, "INCOMPLETE") || !strings.Contains(stdout, "native") && !strings.Contains(stdout, "again") {
				t.Errorf("%s: report: exit %d, %s\n%s", when, code, stderr, stdout)
			}
			if _, stderr, code := runCLI(t, "compare", out, out); code != 0 {
				t.Errorf("%s: compare: exit %d, %s", when, code, stderr)
			}
		}
		check("in progress")
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		check("killed")
		outs = append(outs, out)
	}
	merged := filepath.Join(dir, "merged")
	mustRun(t, append([]string{"merge", "-o", merged}, outs...)...)
	set, err := results.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	envs := map[string]int{}
	for _, r := range set.Runs {
		envs[r.Environment]++
	}
	if envs["native"] < 5 || envs["again"] < 5 || len(set.Incomplete()) == 0 {
		t.Errorf("merge of two killed shards: processes per environment %v, incomplete %v", envs, set.Incomplete())
	}
}

// TestAnotherSpecOverAnUnfinishedRun: item 10. Interrupt spec A's run;
// spec B into the same directory is refused, and A's --resume still
// finishes it.
func TestAnotherSpecOverAnUnfinishedRun(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.cue")
	os.WriteFile(a, []byte(`name: "a"
environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 40, pause: "20ms"}
schedule: settle: cap: "0s" // as writeSpec's: no waiting out the tests' own load
`), 0o644)
	b := filepath.Join(dir, "b.cue")
	os.WriteFile(b, []byte(`name: "b"
environments: [{name: "native", kind: "native"}]
n: [2]
samples: min: 2
schedule: settle: cap: "0s"
`), 0o644)
	out := filepath.Join(dir, "out")
	cmd, _ := startRun(t, dir, a, out)
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	wantRefused(t, []string{"run", b, "-o", out}, "unfinished run of another spec", a, "--resume")
	mustRun(t, "run", a, "-o", out, "--resume")
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if inc := set.Incomplete(); len(inc) > 0 {
		t.Errorf("after the resume: %v", inc)
	}
	// Finished, the directory takes another spec's cells again.
	mustRun(t, "run", b, "-o", out)
}

// TestInterruptedReportLeavesNoTempFile: item 13. Ctrl-C while report
// draws its plots leaves no temporary file and exits 130.
func TestInterruptedReportLeavesNoTempFile(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	ref := filepath.Join(repoRoot(t), "results", "reference")
	interrupted := 0
	for i, after := range []time.Duration{100, 250, 400, 600, 900, 1300} {
		plots := filepath.Join(dir, string(rune('a'+i)))
		cmd := startCLI(t, dir, "report", ref, "--plots", plots, "-o", filepath.Join(dir, string(rune('a'+i))+".md"))
		time.Sleep(after * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code == 130 || code == -1 {
			interrupted++
		} else if code != 0 {
			t.Errorf("after %v: exit %d", after, code)
		}
		for _, d := range []string{dir, plots} {
			if left, _ := filepath.Glob(filepath.Join(d, ".*"+atomicfile.TempMarker+"*")); len(left) > 0 {
				t.Errorf("after %v: left %v", after, left)
			}
		}
	}
	if interrupted == 0 {
		t.Errorf("no report was interrupted: the test checked nothing")
	}
}
