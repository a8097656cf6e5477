package trace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"spawnbench/engine/proc"
	"spawnbench/engine/protocol"
	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"
)

func TestMain(m *testing.M) {
	reexec.Dispatch()
	os.Exit(m.Run())
}

// needTracer skips t where this process cannot trace, with the reason.
func needTracer(t *testing.T) *Tracer {
	t.Helper()
	tr, err := Open()
	if err != nil {
		t.Skipf("cannot trace here: %v", err)
	}
	return tr
}

// buildNative compiles c/<bench>.c with gcc, as the native payload does.
func buildNative(t *testing.T, bench string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the native benchmark")
	}
	out := filepath.Join(t.TempDir(), bench)
	src, _ := filepath.Abs(filepath.Join("..", "..", "c", bench+".c"))
	if b, err := exec.Command(gcc, "-O2", "-pthread", "-o", out, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", bench, err, b)
	}
	return out
}

// traced runs argv under a fresh trace session, and returns its spawn
// lines, its sync reading and the trace.
func traced(t *testing.T, tr *Tracer, argv []string, cpus []int) ([]protocol.Line, *protocol.Sync, *Trace) {
	t.Helper()
	s, err := tr.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines := protocol.NewCollector(-1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := proc.Run(proc.WithStartHook(ctx, s.Attach), proc.Command{Argv: argv, CPUs: cpus, Stdout: lines})
	lines.Close()
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("%v: %v, exit %d: %s", argv, err, out.ExitCode, out.Stderr)
	}
	trace, err := s.End()
	if err != nil {
		t.Fatal(err)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return lines.Lines(), lines.Sync(), trace
}

// spawnsOf puts lines on the trace clock with c.
func spawnsOf(t *testing.T, lines []protocol.Line, c Clock) []Spawn {
	t.Helper()
	out := make([]Spawn, len(lines))
	for i, l := range lines {
		if l.AtNS == nil {
			t.Fatalf("spawn %d has no #at directive", i+1)
		}
		out[i] = Spawn{CallNS: *l.AtNS + c.OffsetNS, FirstNS: *l.AtNS + c.OffsetNS + l.SpawnNS}
	}
	return out
}

// Native threads: every spawn of a sequential and a parallel process
// made a new task, and at least 95% keep call <= new task <= wake-up <=
// first run <= first instruction on the one clock.
func TestNativeSpawnsInOrder(t *testing.T) {
	fulltest.Only(t, "builds and traces the native benchmarks")
	tr := needTracer(t)
	for _, bench := range []string{"sequential", "parallel"} {
		for _, cpus := range [][]int{nil, {0}} {
			bin := buildNative(t, bench)
			lines, _, trace := traced(t, tr, []string{bin, "100"}, cpus)
			if len(lines) != 100 {
				t.Fatalf("%s: %d lines, want 100", bench, len(lines))
			}
			if len(trace.Roots) != 1 {
				t.Errorf("%s: the trace saw %d main processes, want 1", bench, len(trace.Roots))
			}
			an := Join(trace, spawnsOf(t, lines, Monotonic), 1)
			inOrder := 0
			for i, a := range an {
				if !a.NewOSThread {
					t.Errorf("%s cpus %v: spawn %d made no task the trace saw", bench, cpus, i+1)
					continue
				}
				if InOrder(a, lines[i].SpawnNS, 1) {
					inOrder++
				}
			}
			t.Logf("%s cpus %v: %d of %d spawns in order, %d tasks, %d events, %d lost", bench, cpus, inOrder, len(an), len(trace.Tasks), trace.Events, trace.Lost)
			if inOrder < 95 {
				t.Errorf("%s cpus %v: %d of 100 spawns in order, want at least 95", bench, cpus, inOrder)
			}
		}
	}
}
