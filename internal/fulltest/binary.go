package fulltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the main package pkg (an import path of this module or of a
// module it requires, such as spawnbench/cmd/spawnbench) built for the
// tests that run it, or t's failure saying why it could not be built.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	path, err := BuildBinary(pkg)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Spawnbench is spawnbench's own binary, for the tests that run it.
func Spawnbench(t testing.TB) string {
	t.Helper()
	return Binary(t, "spawnbench/cmd/spawnbench")
}

// startEnv and startDir are the test binary's environment and directory
// as it started: a test that changes HOME or XDG_CACHE_HOME (t.Setenv)
// does not move the Go build cache of a build it happens to trigger.
var startEnv, startDir = os.Environ(), func() string { d, _ := os.Getwd(); return d }()

var builds sync.Map // pkg -> func() (string, error)

// BuildBinary builds pkg once per test binary, and once per content for
// all test binaries: the binary is kept in a directory of this user's
// under the temporary directory, keyed by a digest of everything the
// build reads (the packages' files, the required modules' versions, the
// Go toolchain and its settings, the checkout's revision, which the
// binary records). Test binaries of a `go test ./...` running in
// parallel take a lock per key, so one builds and the others wait and
// reuse it. The build has no DWARF (-ldflags=-w: a third off the link,
// and no test reads it) and VCS information (-buildvcs=true, whatever
// GOFLAGS says, as .ci/setup builds it: the tests read the revision the
// binary records; a checkout that is a git worktree gets none, since Go
// does not find its repository).
func BuildBinary(pkg string) (string, error) {
	once, _ := builds.LoadOrStore(pkg, sync.OnceValues(func() (string, error) { return buildShared(pkg) }))
	path, err := once.(func() (string, error))()
	if err != nil {
		return "", fmt.Errorf("build %s for the tests: %w", pkg, err)
	}
	return path, nil
}

// buildFlags are the flags of every test build; they are part of its key.
var buildFlags = []string{"-buildvcs=true", "-ldflags=-w"}

func buildShared(pkg string) (string, error) {
	key, err := buildKey(pkg)
	if err != nil {
		return "", err
	}
	name := filepath.Base(pkg)
	return cached(key, name, func(dir string) error {
		cmd := goCommand(append(append([]string{"build"}, buildFlags...), "-o", filepath.Join(dir, name), pkg)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %w\n%s", err, out)
		}
		return nil
	})
}

// Cached is the file name that build wrote into a directory of its own,
// made once for all test binaries and runs while key (a digest of
// everything build reads) stays the same, and kept where BuildBinary keeps
// its builds. For the tests that need a build of another project's
// sources, which no test asserts anything about: they run the build, not
// its compilation.
func Cached(key, name string, build func(dir string) error) (string, error) {
	sum := sha256.Sum256([]byte(key))
	return cached(hex.EncodeToString(sum[:])[:24], name, build)
}

// cached is Cached of a key already digested: a lock per key, so that
// one test binary builds it and the others wait and reuse it.
func cached(key, name string, build func(dir string) error) (string, error) {
	root, err := sharedDir()
	if err != nil {
		return "", err
	}
	final := filepath.Join(root, key)
	lock, err := os.OpenFile(final+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	exe := filepath.Join(final, name)
	if _, err := os.Stat(exe); err == nil {
		now := time.Now()
		_ = os.Chtimes(final, now, now) // in use: not pruned
		return exe, nil
	}
	tmp, err := os.MkdirTemp(root, key+".building-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(tmp, name)); err != nil {
		return "", fmt.Errorf("the build left no %s: %w", name, err)
	}
	// A directory without its binary is what a removal cut short left.
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	pruneBuilds(root)
	return exe, nil
}

// PayloadBuilds is the directory of a build cache (engine/buildcache) that
// the tests which only run a payload keep its builds in, across test
// binaries and runs, as a user's runs keep theirs: inside this user's
// directory of test builds, so nobody else may write there.
func PayloadBuilds() (string, error) {
	root, err := sharedDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "payloads"), nil
}

// sharedDir is this user's directory of test builds, made private: the
// binaries in it are run, so nobody else may write there.
func sharedDir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("spawnbench-test-builds-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s is not a directory of this user's that only it may write (remove it)", dir)
	}
	return dir, nil
}

// pruneBuilds removes the builds nobody has used for a day.
func pruneBuilds(root string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && e.IsDir() && !strings.Contains(e.Name(), ".building-") && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(root, e.Name()))
			os.Remove(filepath.Join(root, e.Name()+".lock"))
		}
	}
}

// listFormat lists, for each package the build reads, what identifies its
// content: a required module's version, or the files of this module's
// packages (and of modules replaced by a directory), which buildKey reads.
const listFormat = `{{if not .Standard}}{{.ImportPath}}|{{with .Module}}{{.Path}}@{{.Version}}{{with .Replace}}=>{{.Path}}@{{.Version}}{{end}}{{end}}|` +
	`{{if or (not .Module) .Module.Main (and .Module.Replace (not .Module.Replace.Version))}}{{.Dir}}{{end}}|` +
	`{{join .GoFiles ","}},{{join .CgoFiles ","}},{{join .CFiles ","}},{{join .HFiles ","}},{{join .SFiles ","}},{{join .EmbedFiles ","}}{{end}}`

// buildKey digests everything a build of pkg reads.
func buildKey(pkg string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, pkg, buildFlags)
	goEnv, err := goCommand("env", "GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "CC", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	h.Write(goEnv)
	list, err := goCommand("list", "-deps", "-f", listFormat, pkg).Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %w", pkg, goStderr(err))
	}
	h.Write(list)
	for _, line := range strings.Split(string(list), "\n") {
		fields := strings.Split(line, "|")
		if len(fields) != 4 || fields[2] == "" {
			continue
		}
		for _, f := range strings.Split(fields[3], ",") {
			if f == "" {
				continue
			}
			if err := hashFile(h, filepath.Join(fields[2], f)); err != nil {
				return "", err
			}
		}
	}
	if gomod := strings.TrimSpace(lastLine(goEnv)); gomod != "" && gomod != os.DevNull {
		for _, f := range []string{gomod, filepath.Join(filepath.Dir(gomod), "go.sum")} {
			if err := hashFile(h, f); err != nil && !os.IsNotExist(err) {
				return "", err
			}
		}
		h.Write(vcsState(filepath.Dir(gomod)))
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// vcsState is what a build stamps of the checkout: its revision, and
// whether it has changes (the binary's version says "+dirty").
func vcsState(dir string) []byte {
	rev, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return nil
	}
	status, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	return append(rev, fmt.Sprint(len(status) > 0)...)
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintln(h, path)
	_, err = io.Copy(h, f)
	return err
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

func goCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Env, cmd.Dir = startEnv, startDir
	return cmd
}

func goStderr(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(bytes.TrimSpace(ee.Stderr)) > 0 {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}
