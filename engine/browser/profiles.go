package browser

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"spawnbench/engine/proc"
)

// A browser's temporary profile is a directory in the temporary directory
// named for the browser and the spawnbench that made it (profilePrefix).
// A spawnbench removes its own when it is done with them; what one killed
// by SIGKILL left, its keeper removes (through proc.OnOwnerGone), and the
// next spawnbench's run removes what a keeper killed with it left
// (RemoveStaleProfiles).

// profileKinds are the browsers that make temporary profiles.
var profileKinds = []string{Chromium{}.Name(), Firefox{}.Name()}

func init() { proc.OnOwnerGone(removeProfilesOf) }

// profilePrefix is the start of the name of a temporary profile of the
// browser kind made by this spawnbench.
func profilePrefix(kind string) string {
	return "spawnbench-" + kind + "-" + proc.Owner() + "-"
}

// profileOwner is the owner (see proc.Owner) in the name of a temporary
// profile, or "" when name is not one.
func profileOwner(name string) string {
	for _, kind := range profileKinds {
		rest, ok := strings.CutPrefix(name, "spawnbench-"+kind+"-")
		if !ok {
			continue
		}
		f := strings.SplitN(rest, "-", 3)
		if len(f) < 2 {
			return ""
		}
		return f[0] + "-" + f[1]
	}
	return ""
}

// RemoveStaleProfiles removes the temporary browser profiles of
// spawnbenches that are gone (a SIGKILL leaves them): only this user's,
// since anyone may make a directory of that name in /tmp.
func RemoveStaleProfiles() {
	removeProfiles(proc.OwnerGone)
}

// removeProfilesOf removes the temporary browser profiles of the
// spawnbench owner.
func removeProfilesOf(owner string) {
	removeProfiles(func(o string) bool { return o == owner })
}

// removeProfiles removes this user's temporary browser profiles whose
// owner whose says.
func removeProfiles(whose func(owner string) bool) {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		if owner := profileOwner(e.Name()); owner != "" && whose(owner) && mine(e) {
			os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// mine says whether the directory entry e is this user's.
func mine(e os.DirEntry) bool {
	fi, err := e.Info()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
