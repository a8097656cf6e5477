// Package trust says whether a directory spawnbench runs from is this
// user's alone: owned by this user or root and writable by no one else,
// nor reachable through a directory above it that another user could
// change. A build cache (engine/buildcache) or a toolchain root
// (engine/env) that fails it could hold another user's programs, so it is
// refused, never used.
package trust

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Owned says why the file info fi of path is not this user's alone to
// change, or "" when it is: owned by this user or root, and writable by
// no one else (unless sticky, where allowSticky).
func Owned(fi fs.FileInfo, allowSticky bool) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "" // no owners on this platform
	}
	uid := os.Geteuid()
	if int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Sprintf("belongs to uid %d, not to this user (uid %d) or root", st.Uid, uid)
	}
	symlink := fi.Mode()&fs.ModeSymlink != 0 // whose own mode means nothing
	if !symlink && fi.Mode().Perm()&0o022 != 0 && !(allowSticky && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0) {
		return fmt.Sprintf("is writable by its group or by all (mode %s)", fi.Mode().Perm())
	}
	return ""
}

// Foreign says which of dir (its real path) and the directories above
// it another local user could change (above: one above dir), and why;
// why is "" when none can.
// Only a directory above dir may be writable by all if it is sticky (as
// /tmp is).
func Foreign(dir string) (path string, above bool, why string, err error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false, "", err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", false, "", err
	}
	for p, first := real, true; ; p, first = filepath.Dir(p), false {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", false, "", err
		}
		if why := Owned(fi, !first); why != "" {
			return p, !first, why, nil
		}
		if p == filepath.Dir(p) {
			return "", false, "", nil
		}
	}
}
