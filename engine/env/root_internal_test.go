package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSidRoot makes, under a roots directory of the test's own, the
// directories a sid root has, with its marker when complete, and returns
// the root's directory. It holds no programs: what is tested is whether
// spawnbench would use it.
func fakeSidRoot(t *testing.T, complete bool) string {
	t.Helper()
	t.Setenv("SPAWNBENCH_ROOTS", t.TempDir())
	dir, err := SidRootDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"usr/bin", "etc", "var"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if complete {
		if err := os.WriteFile(filepath.Join(dir, rootMarker), []byte("sid root test: nodejs 24.0-1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMissingSidRootIsNotReadyWithSetupAsTheFix(t *testing.T) {
	t.Setenv("SPAWNBENCH_ROOTS", t.TempDir())
	_, tc := openRoot(RootSid)
	if tc.Present || tc.Unfit || !strings.Contains(tc.Problem, "sid root is not made") || !strings.HasPrefix(tc.Install, ".ci/setup") {
		t.Errorf("no root: %+v; want not ready, the root named, .ci/setup as the fix", tc)
	}
}

// TestFailedSidRootNamesSetupsLog: where setup tried and failed (no
// network, no namespaces), the reason is in its log, which the problem
// names.
func TestFailedSidRootNamesSetupsLog(t *testing.T) {
	roots := t.TempDir()
	t.Setenv("SPAWNBENCH_ROOTS", roots)
	log := filepath.Join(roots, "sid.log")
	if err := os.WriteFile(log, []byte("E: Failed to fetch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, tc := openRoot(RootSid)
	if tc.Present || !strings.Contains(tc.Problem, "not made") || !strings.Contains(tc.Problem, log) || !strings.HasPrefix(tc.Install, ".ci/setup") {
		t.Errorf("a root setup failed to make: %+v; want not ready, naming %s", tc, log)
	}
}

func TestHalfMadeSidRootIsNotUsed(t *testing.T) {
	dir := fakeSidRoot(t, false)
	_, tc := openRoot(RootSid)
	if tc.Present || !strings.Contains(tc.Problem, "half made") || !strings.Contains(tc.Problem, dir) || !strings.HasPrefix(tc.Install, ".ci/setup") {
		t.Errorf("a root without its marker: %+v; want it not used, named half made, setup to make it again", tc)
	}
}

func TestSidRootOthersCanWriteIsRefused(t *testing.T) {
	for _, sub := range []string{"", "usr/bin"} {
		t.Run("/"+sub, func(t *testing.T) {
			dir := fakeSidRoot(t, true)
			if err := os.Chmod(filepath.Join(dir, sub), 0o777); err != nil {
				t.Fatal(err)
			}
			_, tc := openRoot(RootSid)
			if tc.Present || !strings.Contains(tc.Problem, "another local user could have changed its programs") ||
				!strings.Contains(tc.Problem, "writable by its group or by all") || !strings.Contains(tc.Install, "rm -rf "+dir) {
				t.Errorf("a root whose %q others may write: %+v; want it refused, the fix to make it anew", sub, tc)
			}
		})
	}
}

func TestCompleteSidRootIsUsedAndNamesItsPackages(t *testing.T) {
	dir := fakeSidRoot(t, true)
	root, tc := openRoot(RootSid)
	if !tc.Present {
		if strings.Contains(tc.Problem, "bwrap") {
			t.Skipf("no bwrap here: %s", tc.Problem)
		}
		t.Fatalf("a complete root of this user's: %+v; want it used", tc)
	}
	if root.dir != dir || root.version("Node.js v24") != "Node.js v24 [sid root test: nodejs 24.0-1]" {
		t.Errorf("root %+v, version %q", root, root.version("Node.js v24"))
	}
	argv := root.command([]string{"node", "x.js"}, "/some/build", "/some/build", "/some")
	joined := strings.Join(argv, " ")
	for _, want := range []string{"bwrap ", "--ro-bind " + dir + "/usr /usr", "--bind /some /some", "--bind /some/build /some/build", "--chdir /some/build", "-- node x.js"} {
		if !strings.Contains(joined, want) {
			t.Errorf("command %q lacks %q", joined, want)
		}
	}
	if strings.Index(joined, "--bind /some ") > strings.Index(joined, "--bind /some/build") {
		t.Errorf("command %q binds a directory after one inside it", joined)
	}
	if strings.Count(joined, "--bind /some/build ") != 1 {
		t.Errorf("command %q binds the build twice", joined)
	}
}

func TestSystemRootRunsTheCommandItself(t *testing.T) {
	root, tc := openRoot(RootSystem)
	if !tc.Present || !root.system() {
		t.Fatalf("system root: %+v %+v", root, tc)
	}
	if got := root.command([]string{"node", "x.js"}, "/b"); strings.Join(got, " ") != "node x.js" {
		t.Errorf("system root wraps the command: %q", got)
	}
}
