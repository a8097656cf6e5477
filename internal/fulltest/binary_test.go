package fulltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryIsBuiltOncePerContent: a second test binary asking for the
// same package gets the same build, kept in this user's private directory.
func TestBinaryIsBuiltOncePerContent(t *testing.T) {
	Only(t, "builds benchstat")
	const pkg = "golang.org/x/perf/cmd/benchstat"
	path := Binary(t, pkg)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&0o100 == 0 {
		t.Fatalf("the build %s: %v, mode %v; want an executable", path, err, fi.Mode())
	}
	dir, err := sharedDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, dir+string(filepath.Separator)) || filepath.Base(path) != "benchstat" {
		t.Errorf("the build is %s, want dir/<key>/benchstat in %s", path, dir)
	}
	// What another test binary does: a fresh build, found by its key.
	again, err := buildShared(pkg)
	if err != nil || again != path {
		t.Errorf("built again: %s, %v; want the same %s", again, err, path)
	}
	key, err := buildKey(pkg)
	if err != nil || filepath.Base(filepath.Dir(path)) != key {
		t.Errorf("key %q (%v), want the build's directory %s", key, err, filepath.Dir(path))
	}
}
