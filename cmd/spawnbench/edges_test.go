package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// edgeSpec is a spec of 12 short processes of one cell: a progress line
// after each, and time to stop it in the middle.
const edgeSpec = `name: "edge"
environments: [{name: "s", kind: "command", run: ["/bin/sh", "-c", "sleep 0.2; echo 1 2 3", "{arg}"]}]
n: [1]
samples: {min: 12, processes: 1}
`

// waitRuns waits until the set in out holds at least n processes.
func waitRuns(t *testing.T, out string, n int, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if set, err := results.Read(out); err == nil && len(set.Runs) >= n {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s holds no %d processes after 60 s", out, n)
		}
	}
}

// exitOf is cmd's exit code once it has ended.
func exitOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	return fulltest.ExitCode(t, cmd.Wait())
}

// resumedWhole resumes the run in out and checks that it completes the
// set: every process of the plan once, the first invocation recorded as
// interrupted.
func resumedWhole(t *testing.T, dir, spec, out string, processes int) {
	t.Helper()
	mustRun(t, "run", spec, "-o", out, "--resume")
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int32]int{}
	for _, r := range set.Runs {
		seen[r.Process]++
	}
	invs := set.Provenance.Invocations
	if len(seen) != processes || len(set.Runs) != processes || len(invs) != 2 || !invs[0].Interrupted || invs[1].Interrupted || invs[1].EndedAt == nil {
		t.Errorf("after --resume: %d runs of %d processes (want %d), invocations %+v", len(set.Runs), len(seen), processes, invs)
	}
}

// TestClosedOutputIsAnInterrupt: issue 33, item 2. A run whose standard
// output (and error) goes into a pipe whose reader goes away, written to
// or not, ends as Ctrl-C ends it: exit 130, what was measured kept, the
// invocation recorded as interrupted, and --resume completes the set.
func TestClosedOutputIsAnInterrupt(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	for _, tc := range []struct {
		name string
		// both: stderr goes into the pipe too, and the reader closes it
		// after the first progress line (`run SPEC 2>&1 | head`); else
		// only stdout does, and its reader closes it unread once a
		// process is recorded (a pager quit: nothing was written yet).
		both bool
	}{{"stdout and stderr, closed after the first progress line", true}, {"stdout only, closed unread", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeSpec(t, dir, edgeSpec)
			out := filepath.Join(dir, "out")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary(t), "run", p, "-o", out)
			cmd.Dir = dir
			cmd.Env = sharedCache()
			stderr := &fulltest.LockedBuffer{}
			cmd.Stdout, cmd.Stderr = w, stderr
			if tc.both {
				cmd.Stderr = w
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if tc.both {
				lines := bufio.NewScanner(r)
				for lines.Scan() && !strings.HasPrefix(lines.Text(), "progress: ") {
				}
			} else {
				waitRuns(t, out, 1, cmd)
			}
			r.Close()
			if code := exitOf(t, cmd); code != 130 {
				t.Fatalf("exit %d, want 130: %s", code, stderr.String())
			}
			if !tc.both && !strings.Contains(stderr.String(), "standard output or error is gone") {
				t.Errorf("stderr does not say why the run stopped: %s", stderr.String())
			}
			set, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if inv := set.Provenance.Last(); len(set.Runs) == 0 || len(set.Runs) == 12 || !inv.Interrupted || inv.EndedAt == nil {
				t.Fatalf("%d runs, invocation %+v: want some of 12 processes, interrupted", len(set.Runs), inv)
			}
			resumedWhole(t, dir, p, out, 12)
		})
	}
	// A stdout closed before the start is Go's /dev/null: the run goes on.
	dir := t.TempDir()
	p := writeSpec(t, dir, strings.Replace(edgeSpec, "min: 12", "min: 2", 1))
	out := filepath.Join(dir, "out")
	cmd := exec.Command("/bin/sh", "-c", `exec "$0" run "$1" -o "$2" >&-`, binary(t), p, out)
	cmd.Dir = dir
	cmd.Env = sharedCache()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stdout closed at the start: %v: %s", err, b)
	}
	if set, err := results.Read(out); err != nil || len(set.Runs) != 2 || set.Provenance.Last().Interrupted {
		t.Errorf("stdout closed at the start: %v, want 2 processes, not interrupted", err)
	}
}

// TestDamagedJournalLineIsSkipped: issue 33, item 3. A killed run's
// journal with a damaged line in the middle: report warns naming the
// line and keeps every other process; --resume measures the lost one
// again, and the damaged line is kept in journal.damaged.jsonl.
func TestDamagedJournalLineIsSkipped(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, edgeSpec)
	out := filepath.Join(dir, "out")
	cmd, _ := startRun(t, dir, p, out)
	waitRuns(t, out, 4, cmd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	path := filepath.Join(out, results.JournalFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var processLines []int // indexes into lines
	for i, l := range lines {
		if strings.HasPrefix(l, `{"k":"process"`) && strings.HasSuffix(l, "\n") {
			processLines = append(processLines, i)
		}
	}
	if len(processLines) < 4 {
		t.Fatalf("journal holds %d whole process lines: %s", len(processLines), b)
	}
	// The second process's line loses its end (a damaged sector, say).
	hit := processLines[1]
	lines[hit] = lines[hit][:len(lines[hit])/2] + "\x00\x00garbage\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "report", out)
	lineNo := "line(s) " + strconv.Itoa(hit+1) + ","
	if code != 0 || !strings.Contains(stderr, lineNo) || !strings.Contains(stderr, "they held 1 process(es)") || !strings.Contains(stdout, "INCOMPLETE") {
		t.Errorf("report: exit %d, stderr %q; want the warning naming %q and 1 process", code, stderr, lineNo)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != len(processLines)-1 {
		t.Errorf("%d processes kept, want every other one of the journal's %d", len(set.Runs), len(processLines))
	}
	_, stderr, code = runCLI(t, "run", p, "-o", out, "--resume")
	if code != 0 || !strings.Contains(stderr, "kept in "+filepath.Join(out, results.DamagedFile)) {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if side, err := os.ReadFile(filepath.Join(out, results.DamagedFile)); err != nil || !strings.Contains(string(side), `"journal_line":`+strconv.Itoa(hit+1)) {
		t.Errorf("%s: %v: %s", results.DamagedFile, err, side)
	}
	set, err = results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 12 {
		t.Errorf("after --resume: %d processes, want 12", len(set.Runs))
	}
}
