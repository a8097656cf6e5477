package browser

import (
	"os"
	"path/filepath"
	"testing"

	"spawnbench/engine/proc"
)

// TestStaleProfilesRemoved: a profile of a spawnbench that is gone is
// removed, one of a living spawnbench is not, nor a directory that is
// not a profile.
func TestStaleProfilesRemoved(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	mine := filepath.Join(os.TempDir(), profilePrefix("chromium")+"x")
	// pid 1 did not start at time 1: this one's spawnbench is gone.
	stale := filepath.Join(os.TempDir(), "spawnbench-firefox-1-1-x")
	other := filepath.Join(os.TempDir(), "spawnbench-firefox-notmine")
	notProfile := filepath.Join(os.TempDir(), "spawnbench-cache-1-1-x")
	for _, d := range []string{mine, stale, other, notProfile} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	RemoveStaleProfiles()
	for d, want := range map[string]bool{mine: true, stale: false, other: true, notProfile: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
}

// TestKeeperHookRemovesTheOwnersProfiles: the hook a keeper runs once its
// spawnbench is gone removes that spawnbench's profiles, of both
// browsers, and no other's.
func TestKeeperHookRemovesTheOwnersProfiles(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	gone := "1-1"
	var theirs []string
	for _, kind := range profileKinds {
		theirs = append(theirs, filepath.Join(os.TempDir(), "spawnbench-"+kind+"-"+gone+"-abc"))
	}
	living := filepath.Join(os.TempDir(), profilePrefix("firefox")+"abc")
	for _, d := range append(theirs, living) {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeProfilesOf(gone)
	for _, d := range theirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is left after its owner's hook ran", d)
		}
	}
	if _, err := os.Stat(living); err != nil {
		t.Errorf("the profile of this living spawnbench (%s) was removed: %v", proc.Owner(), err)
	}
}
