package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Missing says why the program name cannot be run, or "" when it can: not
// found on PATH, a directory, or a file without execute permission, so a
// skip names its real cause.
func Missing(name string) string {
	if _, err := exec.LookPath(name); err == nil {
		return ""
	}
	if strings.Contains(name, "/") {
		return whyNot(name, name)
	}
	// Not runnable from PATH: say so, or what stands there instead.
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			return whyNot(name, path)
		}
	}
	return fmt.Sprintf("%q not found on PATH", name)
}

func whyNot(name, path string) string {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return fmt.Sprintf("%q does not exist", name)
	case err != nil:
		return fmt.Sprintf("%q cannot be run: %v", name, err)
	case fi.IsDir():
		return fmt.Sprintf("%q is a directory, not a program", path)
	case fi.Mode()&0o111 == 0:
		return fmt.Sprintf("%q is not executable (mode %s); make it so with: chmod +x %s", path, fi.Mode().Perm(), path)
	}
	return fmt.Sprintf("%q cannot be run", path)
}
