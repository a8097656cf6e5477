package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/internal/reexec"
)

// TestMain lets the test binary stand in for a benchmark that spawns
// threads: a real multi-threaded process with a known CPU appetite. With
// guardianTestVar set, its trees are held by guardians even where a
// cgroup could be made (TestUnderGuardians).
func TestMain(m *testing.M) {
	reexec.Register(burnThreadsRole, func() int { burnThreads(4); return 0 })
	OnOwnerGone(removeLeftovers)
	reexec.Dispatch()
	forceGuardian = os.Getenv(guardianTestVar) != ""
	os.Exit(m.Run())
}

// leftoverPrefix starts the name of what a test spawnbench leaves in the
// temporary directory for its keeper to remove (removeLeftovers, an
// OnOwnerGone hook): "<prefix><owner>-...".
const leftoverPrefix = "spawnbench-proctest-"

func removeLeftovers(owner string) {
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), leftoverPrefix+owner+"-*"))
	for _, d := range left {
		os.RemoveAll(d)
	}
}

// burnThreadsRole makes the test binary burn four threads' worth of CPU.
const burnThreadsRole = "test-burn-threads"

// burnThreadsEnv is the environment entry of a burnThreadsRole.
func burnThreadsEnv(t testing.TB) []string {
	t.Helper()
	role, err := reexec.Env(burnThreadsRole)
	if err != nil {
		t.Fatal(err)
	}
	return []string{role}
}

// guardianTestVar makes the test binary hold its trees by guardians.
const guardianTestVar = "SPAWNBENCH_TEST_GUARDIAN"

// burnThreads keeps threads OS threads busy with a fixed amount of work
// each (about 50 ms of CPU time here), however loaded the machine is.
func burnThreads(threads int) {
	done := make(chan uint64)
	for range threads {
		go func() {
			runtime.LockOSThread()
			x := uint64(88172645463325252)
			for range 25_000_000 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
			done <- x
		}()
	}
	var sum uint64
	for range threads {
		sum += <-done
	}
	fmt.Println(sum) // the work must not be optimised away
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		name           string
		script         string
		stdout, stderr string
		exit           int
		signal         string
	}{
		{"exit code and streams", "echo out; echo err >&2; exit 7", "out\n", "err\n", 7, ""},
		{"clean exit", "printf '1 2 3\\n'", "1 2 3\n", "", 0, ""},
		{"signal is named", "kill -ABRT $$", "", "", -1, "aborted"},
		{"SIGKILL from inside is named", "echo x; kill -KILL $$", "x\n", "", -1, "killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Run(context.Background(), Command{Argv: []string{"sh", "-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			if string(out.Stdout) != tc.stdout || string(out.Stderr) != tc.stderr || out.ExitCode != tc.exit || out.Signal != tc.signal {
				t.Errorf("stdout %q stderr %q exit %d signal %q, want %q %q %d %q",
					out.Stdout, out.Stderr, out.ExitCode, out.Signal, tc.stdout, tc.stderr, tc.exit, tc.signal)
			}
			if out.TimedOut || out.Wall <= 0 || out.OOMKilled {
				t.Errorf("timed out %v, wall %s, OOM-killed %v", out.TimedOut, out.Wall, out.OOMKilled)
			}
		})
	}
}

// alive says whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// pidsIn reads the pids a script wrote, one per line, to dir's *.pid files.
func pidsIn(t *testing.T, dir string) []int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// pidWritten waits (for at most about 10 s) until a script's detached
// process has written its pid file: on a busy machine it may not have run
// at all by the script's own end, and then the run would end it before
// the test could look for it.
const pidWritten = `i=0; until [ -s $D/a.pid ] || [ $i -ge 1000 ]; do sleep 0.01; i=$((i+1)); done; `

// TestTreeEnds: whatever a benchmark's descendants do to get away (leave
// the group, the session, close their streams, clear their environment),
// the run ends at its deadline or when its main process does, and none of
// them is left running. $D is a directory for the scripts' pid files.
func TestTreeEnds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		timeout  time.Duration // 0: none
		timedOut bool
		within   time.Duration // how long Run may take: 10 s past its end (idle: ms), far below the sleeps
		stdout   string
	}{
		{
			name:    "group child under a timeout",
			script:  `sleep 30 & echo $! > $D/a.pid; wait`,
			timeout: 500 * time.Millisecond, timedOut: true, within: 10500 * time.Millisecond,
		},
		{
			name:    "detached grandchild keeping stdout open under a timeout",
			script:  `setsid sh -c 'echo $$ > $D/a.pid; exec sleep 1000' & sleep 1000`,
			timeout: time.Second, timedOut: true, within: 11 * time.Second,
		},
		{
			name:   "detached grandchild keeping stdout open after the main process ends",
			script: `setsid sh -c 'echo $$ > $D/a.pid; exec sleep 1000' & ` + pidWritten + `echo main done`,
			within: 10100 * time.Millisecond, stdout: "main done\n",
		},
		{
			name:   "sleep 1000 grandchild does not hold the run",
			script: `sleep 1000 & echo $! > $D/a.pid; echo hi`,
			within: 10 * time.Second, stdout: "hi\n",
		},
		{
			name:   "double-forked daemon that closed and reopened its streams",
			script: `( setsid sh -c 'exec </dev/null >/dev/null 2>&1; exec 1>$D/log; echo $$ > $D/a.pid; exec sleep 1000' & ) ; ` + pidWritten + `echo ok`,
			within: 10100 * time.Millisecond, stdout: "ok\n",
		},
		{
			name:   "orphan with a cleared environment, seen while attached",
			script: `env -i D=$D setsid sh -c 'echo $$ > $D/a.pid; exec sleep 1000' & ` + pidWritten + `sleep 0.3`,
			within: 10300 * time.Millisecond,
		},
		{
			// Issue 20, item 1, and issue 33, item 1: it leaves before
			// any walk could link it and carries no token; the cgroup, or
			// the guardian it falls to, holds it.
			name:   "orphan with a cleared environment, never seen attached",
			script: `(env -i D=$D setsid sh -c 'echo $$ > $D/a.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &); ` + pidWritten + `sleep 1; echo 1 2 3`,
			within: 11 * time.Second, stdout: "1 2 3\n",
		},
		{
			name:    "fork chain under a timeout",
			script:  `sh -c 'sh -c "sleep 1000 & echo \$! > $D/b.pid; sleep 1000" & echo $! > $D/a.pid; sleep 1000' & sleep 1000`,
			timeout: 500 * time.Millisecond, timedOut: true, within: 10500 * time.Millisecond,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case is a tree of its own (its own pid file, killed
			// and looked for by pid), and mostly waits for its timeout
			// or its end: the cases run side by side.
			t.Parallel()
			dir := t.TempDir()
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			begun := time.Now()
			out, err := Run(ctx, Command{Argv: []string{"sh", "-c", tc.script}, Env: []string{"D=" + dir}})
			took := time.Since(begun)
			if err != nil {
				t.Fatal(err)
			}
			pids := pidsIn(t, dir)
			defer func() {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}()
			if out.TimedOut != tc.timedOut || took > tc.within || string(out.Stdout) != tc.stdout {
				t.Errorf("timed out %v after %s (wall %s), stdout %q; want timed out %v within %s, stdout %q",
					out.TimedOut, took, out.Wall, out.Stdout, tc.timedOut, tc.within, tc.stdout)
			}
			if len(pids) == 0 {
				t.Fatal("the script wrote no pid")
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("descendant %d still runs after Run returned", pid)
				}
			}
		})
	}
}

// TestStrangersSurvive: killing a tree leaves spawnbench's other
// children alone, a concurrent build or another benchmark's browser.
func TestStrangersSurvive(t *testing.T) {
	build := exec.Command("sleep", "30")
	if err := build.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { build.Process.Kill(); build.Wait() }()
	browser, err := Start(context.Background(), Command{Argv: []string{"sh", "-c", "sleep 30 & sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer browser.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	out, err := Run(ctx, Command{Argv: []string{"sh", "-c", "setsid sleep 1000 & sleep 1000"}})
	if err != nil || !out.TimedOut {
		t.Fatalf("timed out %v, err %v", out.TimedOut, err)
	}
	if !alive(build.Process.Pid) {
		t.Error("a concurrent non-benchmark child was killed")
	}
	if !alive(browser.Pid) {
		t.Error("another tree's main process was killed")
	}
	select {
	case <-browser.Done():
		t.Error("another tree ended")
	default:
	}
	stopped, err := browser.Stop()
	if err != nil || stopped.Signal != "killed" {
		t.Errorf("Stop: signal %q, err %v", stopped.Signal, err)
	}
}

// TestInterruptStopsWithinASecond: Ctrl-C (SIGINT to spawnbench, which
// ends the run's context) stops a tree with a detached, stdout-holding
// grandchild at once.
func TestInterruptStopsWithinASecond(t *testing.T) {
	for _, viaSignal := range []bool{false, true} {
		name := "context cancelled"
		if viaSignal {
			name = "SIGINT"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var ctx context.Context
			var cancel context.CancelFunc
			if viaSignal {
				ctx, cancel = signal.NotifyContext(context.Background(), os.Interrupt)
			} else {
				ctx, cancel = context.WithCancel(context.Background())
			}
			defer cancel()
			var sent time.Time
			go func() {
				time.Sleep(300 * time.Millisecond)
				sent = time.Now()
				if viaSignal {
					syscall.Kill(os.Getpid(), syscall.SIGINT)
				} else {
					cancel()
				}
			}()
			out, err := Run(ctx, Command{
				Argv: []string{"sh", "-c", `setsid sh -c 'echo $$ > $D/a.pid; exec sleep 1000' & sleep 1000`},
				Env:  []string{"D=" + dir},
			})
			stoppedIn := time.Since(sent)
			if !errors.Is(err, context.Canceled) || out.TimedOut {
				t.Errorf("err %v, timed out %v; want context.Canceled", err, out.TimedOut)
			}
			if stoppedIn > time.Second {
				t.Errorf("stopped %s after the interrupt", stoppedIn)
			}
			for _, pid := range pidsIn(t, dir) {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("descendant %d survived the interrupt", pid)
				}
			}
		})
	}
}

func TestPinning(t *testing.T) {
	out, err := Run(context.Background(), Command{Argv: []string{"grep", "Cpus_allowed_list", "/proc/self/status"}, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out.Stdout)); len(f) != 2 || f[1] != "0" {
		t.Errorf("pinned process sees %q", out.Stdout)
	}
	// The pinning does not leak into spawnbench itself.
	out, _ = Run(context.Background(), Command{Argv: []string{"grep", "Cpus_allowed_list", "/proc/self/status"}})
	self, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(self), "\n") {
		if strings.HasPrefix(line, "Cpus_allowed_list") && strings.TrimSpace(string(out.Stdout)) != strings.TrimSpace(line) {
			t.Errorf("unpinned process sees %q, spawnbench %q", out.Stdout, line)
		}
	}
}

func TestMissingProgram(t *testing.T) {
	_, err := Run(context.Background(), Command{Argv: []string{"/no/such/program"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/program") {
		t.Errorf("err = %v", err)
	}
}

// TestOutputBounds: stdout is kept up to StdoutKept from its start (or
// streams to Command.Stdout), stderr is its last StderrKept bytes.
func TestOutputBounds(t *testing.T) {
	over := int64(3 << 20)
	for _, tc := range []struct {
		name       string
		script     string
		stream     bool
		stdoutLen  int
		dropped    int64
		stderrLen  int
		stderrTail string
	}{
		{
			name:      "stdout past its bound",
			script:    "head -c " + strconv.FormatInt(StdoutKept+over, 10) + " /dev/zero",
			stdoutLen: StdoutKept, dropped: over,
		},
		{
			name:      "stdout streamed",
			script:    "head -c " + strconv.FormatInt(StdoutKept+over, 10) + " /dev/zero",
			stream:    true,
			stdoutLen: 0,
		},
		{
			name:      "stderr keeps its end",
			script:    "head -c 5000000 /dev/zero >&2; echo the end >&2",
			stderrLen: StderrKept, stderrTail: "\x00the end\n",
		},
		{
			name:      "short stderr whole",
			script:    "echo why >&2",
			stderrLen: 4, stderrTail: "why\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var streamed countingWriter
			c := Command{Argv: []string{"sh", "-c", tc.script}}
			if tc.stream {
				c.Stdout = &streamed
			}
			out, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Stdout) != tc.stdoutLen || out.StdoutDropped != tc.dropped {
				t.Errorf("stdout kept %d dropped %d, want %d and %d", len(out.Stdout), out.StdoutDropped, tc.stdoutLen, tc.dropped)
			}
			if tc.stream && (out.Stdout != nil || int64(streamed) != StdoutKept+over) {
				t.Errorf("streamed %d bytes, kept %d", streamed, len(out.Stdout))
			}
			if len(out.Stderr) != tc.stderrLen || !bytes.HasSuffix(out.Stderr, []byte(tc.stderrTail)) {
				t.Errorf("stderr kept %d bytes ending %q, want %d ending %q", len(out.Stderr), lastBytes(out.Stderr, 12), tc.stderrLen, tc.stderrTail)
			}
		})
	}
}

type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

func lastBytes(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

func TestTailBuffer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"under", 8, []string{"ab", "cd"}, "abcd"},
		{"wraps", 4, []string{"abc", "def"}, "cdef"},
		{"wraps twice", 4, []string{"abc", "de", "fgh", "i"}, "fghi"},
		{"one big write", 3, []string{"a", "bcdefg"}, "efg"},
		{"exactly full", 3, []string{"ab", "c"}, "abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &tailBuffer{max: tc.max}
			for _, w := range tc.writes {
				b.Write([]byte(w))
			}
			if got := string(b.Bytes()); got != tc.want {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
		})
	}
}

// TestOutput: a tool's combined output, its failures with their output,
// and an interrupt that stops a tool whose detached child holds the pipe
// at once, as an interrupt and not a tool failure.
func TestOutput(t *testing.T) {
	for _, tc := range []struct {
		name     string
		argv     []string
		env      []string
		cancelAt time.Duration // 0: never
		want     string        // the output
		err      string        // substring of the error; "" for none
		canceled bool
	}{
		{"combined output", []string{"sh", "-c", "echo one; echo two >&2; echo three"}, nil, 0, "one\ntwo\nthree\n", "", false},
		{"environment added", []string{"sh", "-c", "echo $PROC_TEST_X $HOME"}, []string{"PROC_TEST_X=y"}, 0, "y " + os.Getenv("HOME") + "\n", "", false},
		{"failure carries the output", []string{"sh", "-c", "echo bad flag >&2; exit 3"}, nil, 0, "bad flag\n", "sh: exit status 3\nbad flag", false},
		{"missing tool", []string{"/no/such/tool"}, nil, 0, "", "/no/such/tool", false},
		{"interrupted with a detached child holding the pipe", []string{"sh", "-c", "setsid sleep 1000 & sleep 1000"}, nil, 200 * time.Millisecond, "", "context canceled", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelAt > 0 {
				time.AfterFunc(tc.cancelAt, cancel)
			}
			begun := time.Now()
			out, err := OutputOf(ctx, Command{Argv: tc.argv, Env: tc.env})
			if out != tc.want || errors.Is(err, context.Canceled) != tc.canceled {
				t.Errorf("output %q, err %v; want %q, canceled %v", out, err, tc.want, tc.canceled)
			}
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
			// Ten seconds: far above an idle machine's milliseconds, far
			// below the detached child's sleep.
			if took := time.Since(begun); took > tc.cancelAt+10*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}
