package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// TestRetryLine: the line that continues a run repeats the command as
// given, adds -o for a default directory and --resume once, and quotes
// what a shell would split or expand.
func TestRetryLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args             []string
		dir              string
		outGiven, resume bool
		want             string
	}{
		{[]string{"bin/spawnbench", "run", "s.cue"}, "results/x", false, false, "bin/spawnbench run s.cue -o results/x --resume"},
		{[]string{"spawnbench", "run", "s.cue", "-o", "d"}, "d", true, false, "spawnbench run s.cue -o d --resume"},
		{[]string{"spawnbench", "run", "s.cue", "-o", "d", "--resume"}, "d", true, true, "spawnbench run s.cue -o d --resume"},
		{[]string{"spawnbench", "run", "my spec.cue", "--env", "wasmtime-*", "-o", "it's"}, "it's", true, false,
			`spawnbench run 'my spec.cue' --env 'wasmtime-*' -o 'it'\''s' --resume`},
		{[]string{"spawnbench", "run", ""}, "d", true, true, "spawnbench run ''"},
	}
	for _, c := range cases {
		if got := RetryLine(c.args, c.dir, c.outGiven, c.resume); got != c.want {
			t.Errorf("RetryLine(%q, %q, %v, %v) = %s, want %s", c.args, c.dir, c.outGiven, c.resume, got, c.want)
		}
	}
}

// TestReportStale: a report is stale when it is missing or older than
// the end of the set's last invocation, not otherwise.
func TestReportStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ended := time.Now().Add(-time.Hour)
	set := &results.Set{Provenance: results.Provenance{Invocations: []results.Invocation{{ID: 1, EndedAt: &ended}}}}
	if !ReportStale(dir, set) {
		t.Error("no report.md: not stale")
	}
	report := filepath.Join(dir, render.ReportFile)
	if err := os.WriteFile(report, []byte("# report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ReportStale(dir, set) {
		t.Error("a report written after the last invocation ended: stale")
	}
	later := time.Now().Add(time.Hour)
	set.Provenance.Invocations = append(set.Provenance.Invocations, results.Invocation{ID: 2, EndedAt: &later})
	if !ReportStale(dir, set) {
		t.Error("a report older than the last invocation's end: not stale")
	}
}

// tinyPlan is a plan of one native cell, spec at dir/s.cue.
func tinyPlan(t *testing.T, dir, name string) *spec.RunPlan {
	t.Helper()
	p := filepath.Join(dir, name+".cue")
	body := "name: \"" + name + "\"\nenvironments: [{name: \"native\", kind: \"native\"}]\nn: [1]\nsamples: {min: 1, processes: 1}\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := spec.LoadPlan(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestSessionBegin: a session holds its directory (a second one is
// refused while it is open); a --resume into a directory with nothing
// of a run says it starts it; a run of another spec into a directory
// holding an unfinished run is bad input, naming the line that finishes
// that run; the hold on interrupts lasts until Close.
func TestSessionBegin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	holds := 0
	opts := SessionOptions{Stdout: &stdout, Stderr: &stderr, Hold: func() func() { holds++; return func() { holds-- } }}
	ses, err := OpenSession(context.Background(), out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if holds != 1 {
		t.Errorf("open session: %d holds on interrupts, want 1", holds)
	}
	var locked *results.LockedError
	if _, err := OpenSession(context.Background(), out, SessionOptions{Stdout: &stdout, Stderr: &stderr}); !errors.As(err, &locked) {
		t.Errorf("a second session on %s: %v, want the directory locked", out, err)
	}
	a := tinyPlan(t, dir, "a")
	complete, err := ses.Begin(a, RunOptions{}, true)
	if err != nil || complete {
		t.Fatalf("resume into an empty directory: complete %v, %v", complete, err)
	}
	if want := out + " holds no run of " + a.Spec.Path + " yet: starting it"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	// An invocation of spec a that never ended, on this machine.
	if _, err := ses.writer.Begin(results.Invocation{Command: "run", SpecPath: a.Spec.Path, SpecHash: a.Spec.Hash, Machine: Machine(), StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	b := tinyPlan(t, dir, "b")
	_, err = ses.Begin(b, RunOptions{}, false)
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "unfinished run of another spec") || !strings.Contains(err.Error(), "spawnbench run "+a.Spec.Path+" -o "+out+" --resume") {
		t.Errorf("run of spec b over a's unfinished run: %v", err)
	}
	if _, err := ses.Begin(a, RunOptions{}, false); err != nil {
		t.Errorf("run of spec a over its own unfinished run: %v", err)
	}
	ses.Close()
	if holds != 0 {
		t.Errorf("closed session: %d holds on interrupts, want 0", holds)
	}
	if stdout.Len() != 0 {
		t.Errorf("Begin wrote to stdout: %q", stdout.String())
	}
}

// TestWatchOutputs: an output that is a pipe whose reader is gone cancels
// with ErrOutputGone; a buffer is not watched; stop ends the watch.
func TestWatchOutputs(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := WatchOutputs(cancel, &bytes.Buffer{}, w)
	r.Close()
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), ErrOutputGone) {
			t.Errorf("cancelled by %v, want ErrOutputGone", context.Cause(ctx))
		}
	case <-time.After(10 * time.Second):
		t.Error("the pipe's reader closed: not cancelled in 10 s")
	}
	stop()

	ctx, cancel = context.WithCancelCause(context.Background())
	stop = WatchOutputs(cancel, &bytes.Buffer{})
	stop()
	if ctx.Err() != nil {
		t.Errorf("a buffer's watch cancelled: %v", context.Cause(ctx))
	}
}
