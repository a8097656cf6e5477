package buildcache_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"spawnbench/engine/buildcache"
)

// noSources are benchmark sources of no files.
type noSources struct{}

func (noSources) WriteTo(dir string) error { return os.MkdirAll(dir, 0o755) }
func (noSources) Hash() string             { return "none" }

// script is a payload whose build is one shell script, run, that prints
// what the build wrote into it; builds counts its builds.
type script struct {
	says   string
	builds int
}

func (s *script) BuildName() string                   { return "script" }
func (s *script) BuildKey(ctx context.Context) string { return "k" }
func (s *script) Build(ctx context.Context, srcDir, outDir string) error {
	s.builds++
	return os.WriteFile(filepath.Join(outDir, "run"), []byte("#!/bin/sh\necho "+s.says+"\n"), 0o755)
}

// built runs the build's script and returns what it printed.
func built(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(dir, "run")).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestABuildIsKeptAndAChangedOneBuiltAnew: a build is built once and then
// found; one whose file changed after it was built is built anew, and
// what runs is the build's own.
func TestABuildIsKeptAndAChangedOneBuiltAnew(t *testing.T) {
	c := &buildcache.Cache{Dir: filepath.Join(t.TempDir(), "builds"), Sources: noSources{}}
	s := &script{says: "built"}
	dir, cached, err := c.Build(context.Background(), s)
	if err != nil || cached {
		t.Fatalf("first build: cached %v, %v", cached, err)
	}
	if _, cached, err := c.Build(context.Background(), s); err != nil || !cached || s.builds != 1 {
		t.Fatalf("second build: cached %v, %d builds, %v; want the first found", cached, s.builds, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run"), []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	again, cached, err := c.Build(context.Background(), s)
	if err != nil || cached || s.builds != 2 || again != dir {
		t.Fatalf("after a change: cached %v, %d builds, %s, %v; want a new build in %s", cached, s.builds, again, err, dir)
	}
	if got := built(t, dir); got != "built" {
		t.Errorf("the build prints %q, want the build's own %q", got, "built")
	}
}

// nothingToBuild is a payload whose build writes no file, as a command
// payload's.
type nothingToBuild struct{ builds int }

func (*nothingToBuild) BuildName() string                              { return "nothing" }
func (*nothingToBuild) BuildKey(ctx context.Context) string            { return "k" }
func (p *nothingToBuild) Build(ctx context.Context, _, _ string) error { p.builds++; return nil }

// TestABuildOfNoFilesIsKept: an empty build is found as any other, never
// removed and rebuilt while a process may be running in it.
func TestABuildOfNoFilesIsKept(t *testing.T) {
	c := &buildcache.Cache{Dir: filepath.Join(t.TempDir(), "builds"), Sources: noSources{}}
	p := &nothingToBuild{}
	dir, _, err := c.Build(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, "cwd-of-a-running-process")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if again, cached, err := c.Build(context.Background(), p); err != nil || !cached || again != dir || p.builds != 1 {
		t.Fatalf("second build: %s cached %v, %d builds, %v; want %s found", again, cached, p.builds, err, dir)
	}
	if _, err := os.Stat(inside); err != nil {
		t.Errorf("the build was replaced: %v", err)
	}
}

// together is a payload whose builds each wait until all of its builds
// have begun, so that they all store into the cache at once.
type together struct{ begun *sync.WaitGroup }

func (together) BuildName() string                   { return "together" }
func (together) BuildKey(ctx context.Context) string { return "k" }
func (p together) Build(ctx context.Context, srcDir, outDir string) error {
	p.begun.Done()
	p.begun.Wait()
	return os.WriteFile(filepath.Join(outDir, "run"), []byte("#!/bin/sh\necho together\n"), 0o755)
}

// TestBuildsOfOnePayloadAtOnceShareOne: spawnbench runs of one user that
// build the same payload at once (shards on one machine) all succeed, and
// each gets the one build stored, whole: the last to finish never removes
// the build another is running.
func TestBuildsOfOnePayloadAtOnceShareOne(t *testing.T) {
	c := &buildcache.Cache{Dir: filepath.Join(t.TempDir(), "builds"), Sources: noSources{}}
	const runs = 4
	var begun, done sync.WaitGroup
	begun.Add(runs)
	dirs, errs := make([]string, runs), make([]error, runs)
	for i := range runs {
		done.Add(1)
		go func() {
			defer done.Done()
			dirs[i], _, errs[i] = c.Build(context.Background(), together{&begun})
		}()
	}
	done.Wait()
	for i := range runs {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("build %d of %d at once: %s, %v; want %s, no error", i+1, runs, dirs[i], errs[i], dirs[0])
		}
	}
	if got := built(t, dirs[0]); got != "together" {
		t.Errorf("the build prints %q, want %q", got, "together")
	}
	if left, _ := filepath.Glob(filepath.Join(c.Dir, ".build-*")); len(left) > 0 {
		t.Errorf("temporary build directories left: %v", left)
	}
}

// TestACacheOthersCanWriteIsRefused: a cache directory that another user
// can write, or that sits in one (not sticky), is never used or built
// into, and the error names the directory and the fix.
func TestACacheOthersCanWriteIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache func(root string) string
		loose string
	}{
		{"writable by all", func(root string) string { return filepath.Join(root, "builds") }, "builds"},
		{"in a directory writable by all", func(root string) string { return filepath.Join(root, "shared", "builds") }, "shared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := tc.cache(root)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(root, tc.loose), 0o777); err != nil {
				t.Fatal(err)
			}
			s := &script{says: "built"}
			_, _, err := (&buildcache.Cache{Dir: dir, Sources: noSources{}}).Build(context.Background(), s)
			var foreign *buildcache.ForeignError
			if !errors.As(err, &foreign) || !strings.Contains(err.Error(), filepath.Join(root, tc.loose)+" is writable by its group or by all") || !strings.Contains(err.Error(), "chmod go-w") {
				t.Fatalf("err %v, want the loose directory refused, with the fix", err)
			}
			if s.builds != 0 {
				t.Errorf("built %d times into a cache another user can change", s.builds)
			}
		})
	}
}

// TestABuildAnotherUserReplacedIsRefused: another user (nobody), while
// the cache was writable by all, replaced a build with one of their own;
// once the cache is the user's alone again, that build is still refused,
// never run, and the error names it and the fix.
func TestABuildAnotherUserReplacedIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skipf("running as uid %d, not root: cannot play another user", os.Getuid())
	}
	// Not t.TempDir, whose parent only this user may enter.
	root, err := os.MkdirTemp("", "spawnbench-cache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "builds")
	c := &buildcache.Cache{Dir: dir, Sources: noSources{}}
	s := &script{says: "built"}
	build, _, err := c.Build(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	// A manifest that matches the other user's script, as they could
	// write one.
	theirs := "#!/bin/sh\necho theirs\n"
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	swap := exec.Command("/bin/sh", "-c", `set -e
mv "$B" "$B.old"
mkdir "$B"
printf '%s' "$RUN" > "$B/run"
chmod 755 "$B/run"
printf '{"run":"%s"}' "$(sha256sum "$B/run" | cut -d' ' -f1)" > "$B/.complete"
`)
	swap.Env = append(os.Environ(), "B="+build, "RUN="+theirs)
	swap.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := swap.CombinedOutput(); err != nil {
		t.Fatalf("nobody could not replace the build: %v: %s", err, out)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Build(context.Background(), s)
	var foreign *buildcache.ForeignError
	if !errors.As(err, &foreign) || !strings.Contains(err.Error(), "belongs to uid 65534") || !strings.Contains(err.Error(), "rm -rf "+build) {
		t.Fatalf("err %v, want nobody's build refused, with the fix", err)
	}
	if s.builds != 1 {
		t.Errorf("%d builds, want 1: nobody's build is refused, not built over", s.builds)
	}
}
