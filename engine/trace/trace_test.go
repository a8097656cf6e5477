package trace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// Two processes traced at once, each in its own session, each beside
// an untraced process spawning threads of its own: each trace holds its
// own tree only (its one main process, its own n tasks, none of the
// other's), and nothing about any other task came through the filter.
func TestTracesApartAndOnlyTheTree(t *testing.T) {
	fulltest.Only(t, "builds and traces the native benchmarks")
	tr := needTracer(t)
	bin := buildNative(t, "sequential")
	type result struct {
		lines []protocol.Line
		trace *Trace
	}
	ns := []int{30, 70}
	got := make([]result, len(ns))
	done := make(chan int)
	// The untraced neighbour: a process spawning threads meanwhile.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				close(done)
				return
			default:
				_ = exec.Command(bin, "200").Run()
			}
		}
	}()
	fin := make(chan struct{}, len(ns))
	for i, n := range ns {
		go func() {
			defer func() { fin <- struct{}{} }()
			lines, _, trace := traced(t, tr, []string{bin, fmt.Sprint(n)}, nil)
			got[i] = result{lines, trace}
		}()
	}
	for range ns {
		<-fin
	}
	close(stop)
	<-done
	seen := map[int]int{}
	for i, r := range got {
		if r.trace == nil {
			t.Fatalf("process %d: no trace", i)
		}
		if len(r.trace.Roots) != 1 || len(r.trace.Tasks) != ns[i] {
			t.Errorf("trace %d: %d main processes and %d tasks, want 1 and %d (its own tree only)", i, len(r.trace.Roots), len(r.trace.Tasks), ns[i])
		}
		if r.trace.Foreign != 0 {
			t.Errorf("trace %d: %d events about no task of its tree", i, r.trace.Foreign)
		}
		for _, task := range r.trace.Tasks {
			if j, dup := seen[task.TID]; dup {
				t.Errorf("task %d is in traces %d and %d", task.TID, j, i)
			}
			seen[task.TID] = i
		}
		an := Join(r.trace, spawnsOf(t, r.lines, Monotonic), 1)
		for k, a := range an {
			if !a.NewOSThread {
				t.Errorf("trace %d: spawn %d has no task", i, k+1)
			}
		}
	}
	if left := ownInstances(); len(left) != 0 {
		t.Errorf("instances left after both sessions ended: %v", left)
	}
}

// ownInstances lists this process's trace instances.
func ownInstances() []string {
	var out []string
	for _, name := range Instances() {
		if o, ok := instanceOwner(name); ok && o == proc.Owner() {
			out = append(out, name)
		}
	}
	return out
}

// An instance whose spawnbench is gone is removed by the next one; a
// live spawnbench's is kept.
func TestStaleInstancesAreRemoved(t *testing.T) {
	tr := needTracer(t)
	// A spawnbench that is gone: a process that has exited, named by its
	// pid and start time.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var start string
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		start = f[19]
	}
	_ = cmd.Wait()
	if start == "" {
		t.Skip("could not read a process's start time")
	}
	dead := filepath.Join(tr.root, "instances", fmt.Sprintf("%s%d-%s-1", instancePrefix, pid, start))
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	live, err := tr.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	RemoveStale(tr.root)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		_ = removeInstance(dead)
		t.Errorf("the instance of a spawnbench that is gone is still there (%v)", err)
	}
	if _, err := os.Stat(live.Dir()); err != nil {
		t.Errorf("a live spawnbench's instance was removed: %v", err)
	}
}

// A spawnbench killed with SIGKILL while it traces leaves no instance:
// its keeper removes it.
func TestKilledRunLeavesNoTracing(t *testing.T) {
	fulltest.Only(t, "runs spawnbench's binary and kills it")
	needTracer(t)
	exe := fulltest.Spawnbench(t)
	dir := t.TempDir()
	specFile := filepath.Join(dir, "k.cue")
	if err := os.WriteFile(specFile, []byte(`name: "k"
environments: [{name: "native", kind: "native"}]
modes: ["sequential"]
n: [100]
samples: {min: 1, processes: 100000}
schedule: settle: cap: "0s"
anatomy: traced: ["native"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "run", specFile, "-o", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("%s%d-", instancePrefix, cmd.Process.Pid)
	theirs := func() []string {
		var out []string
		for _, name := range Instances() {
			if strings.HasPrefix(name, prefix) {
				out = append(out, name)
			}
		}
		return out
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(theirs()) == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the run never traced a process")
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline = time.Now().Add(30 * time.Second); len(theirs()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after SIGKILL, its trace instances are still there: %v", theirs())
		}
	}
}
