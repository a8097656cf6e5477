package fulltest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Run runs cmd to its end and returns what it printed and its exit
// status; t fails only when cmd could not be run at all.
func Run(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = ExitCode(t, cmd.Run())
	return o.String(), e.String(), code
}

// ExitCode is the exit status of a process that ended with err, from
// exec.Cmd's Run or Wait; t fails when err says the process did not run
// or was not waited for.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// CopyFile copies from to to with permissions perm, streaming: a binary
// read whole would raise this process's peak memory, which its children
// inherit in their ru_maxrss (the kernel keeps the high-water mark of the
// image a child replaced by exec, and Go forks sharing its memory).
func CopyFile(t testing.TB, from, to string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// CopyExecutable copies the program from to to, runnable by everyone, for
// a test that runs it as another user or from elsewhere. cp writes the
// copy, not this process: a descriptor of the copy open here would be
// inherited by any process a parallel test forks meanwhile, and until
// that one's exec closes it, running the copy fails with "text file
// busy" (ETXTBSY).
func CopyExecutable(from, to string) error {
	if out, err := exec.Command("cp", "--", from, to).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s to %s: %v: %s", from, to, err, bytes.TrimSpace(out))
	}
	return os.Chmod(to, 0o755)
}

// LockedBuffer is a bytes.Buffer safe to read while a process or a
// goroutine writes it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ReferenceCosts copies what the committed reference set's costs are read
// from (its runs and provenance) into dir/costs and returns that
// directory, for a run given --costs: its expected times then come from
// the set, where a run without them would first probe the machine
// (starting a browser of its own, seconds of a CPU) for figures the test
// does not read. A copy, so that a run as another user can read it.
func ReferenceCosts(t testing.TB, dir string) string {
	t.Helper()
	costs := filepath.Join(dir, "costs")
	if err := os.MkdirAll(costs, 0o755); err != nil {
		t.Fatal(err)
	}
	root := RepoRoot(t)
	for _, name := range []string{"runs.parquet", "provenance.json"} {
		CopyFile(t, filepath.Join(root, "results", "reference", name), filepath.Join(costs, name), 0o644)
	}
	return costs
}

// RepoRoot is the checkout's root: the directory holding go.mod, above
// the test binary's starting directory (its package's).
func RepoRoot(t testing.TB) string {
	t.Helper()
	for dir := startDir; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("no go.mod above %s", startDir)
		}
	}
}
