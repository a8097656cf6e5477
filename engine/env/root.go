package env

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"spawnbench/engine/proc"
	"spawnbench/engine/trust"
)

// A toolchain root is where an environment's tools come from: "system",
// this machine's own (Debian 12's packages, the tools cache), or "sid", a
// root of Debian sid's packages that .ci/setup makes with mmdebstrap in
// the user's cache (sid-root.packages lists them). An environment names
// its root in CUE (#Root); the emscripten payload and the node and
// firefox hosts take it. A tool of the sid root runs inside it under
// bwrap: the root's /usr, /etc and /var read-only, this machine's /dev,
// /proc, /sys and /tmp, and the directories the tool works in at their
// own paths. bwrap execs the tool in the process spawnbench started (with
// a parent of its own holding the mount namespace), so the tool is pinned,
// contained and settled as any other process (engine/proc); as an
// ordinary user bwrap makes a user namespace for it.
const (
	RootSystem = "system"
	RootSid    = "sid"
)

//go:embed sid-root.packages
var sidPackagesFile string

// SidPackage is a package of the sid root and the version spawnbench was
// tested with.
type SidPackage struct{ Name, Tested string }

// SidPackages lists the sid root's packages (sid-root.packages).
func SidPackages() []SidPackage {
	var out []SidPackage
	for _, line := range strings.Split(sidPackagesFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			name, tested, _ := strings.Cut(line, " ")
			out = append(out, SidPackage{Name: name, Tested: strings.TrimSpace(tested)})
		}
	}
	return out
}

// rootMarker is the file .ci/setup writes last into a complete root,
// before renaming it into place: a root without it is half made.
const rootMarker = ".spawnbench-root"

// rootInstall is the fix for a sid root that is missing or unusable.
const rootInstall = ".ci/setup (makes the sid root from Debian's packages with mmdebstrap: about 1.4 GB, a few minutes)"

// MachineRoots is where root's .ci/setup makes the roots: one copy for
// every user and clone of the machine, which only root may change.
const MachineRoots = "/var/cache/spawnbench/roots"

// SidRootDir is where the sid root for the current package list is, or
// is to be made: <roots>/sid-<hash>, the hash the first 12 hex digits of
// sid-root.packages' sha256. The roots are $SPAWNBENCH_ROOTS if set; else,
// for root, MachineRoots; for another user, their own
// ${XDG_CACHE_HOME:-$HOME/.cache}/spawnbench/roots, or MachineRoots when
// they have no sid root of their own and root made one.
func SidRootDir() (string, error) {
	sum := sha256.Sum256([]byte(sidPackagesFile))
	name := "sid-" + hex.EncodeToString(sum[:])[:12]
	if base := os.Getenv("SPAWNBENCH_ROOTS"); base != "" {
		return filepath.Join(base, name), nil
	}
	machine := filepath.Join(MachineRoots, name)
	if os.Geteuid() == 0 {
		return machine, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return machine, nil
	}
	own := filepath.Join(cache, "spawnbench", "roots", name)
	if _, err := os.Lstat(own); err != nil {
		if _, err := os.Stat(filepath.Join(machine, rootMarker)); err == nil {
			return machine, nil
		}
	}
	return own, nil
}

// toolRoot is an opened root: dir "" for the system's.
type toolRoot struct {
	dir string
	// versions are the root's packages as made, for provenance
	// ("sid root sid-…: emscripten 6.0.5+dfsg-2, …").
	versions string
}

// openRoot checks the root named in an environment's settings. A root
// that is missing, half made, or that another local user could change is
// not used: the Toolchain says why and how to fix it.
func openRoot(name string) (toolRoot, Toolchain) {
	switch name {
	case "", RootSystem:
		return toolRoot{}, Toolchain{Present: true}
	case RootSid:
	default:
		return toolRoot{}, Toolchain{Problem: fmt.Sprintf("unknown toolchain root %q (the schema's #Root lists them)", name), Unfit: true}
	}
	notReady := func(format string, a ...any) (toolRoot, Toolchain) {
		return toolRoot{}, Toolchain{Install: rootInstall, Problem: fmt.Sprintf(format, a...)}
	}
	dir, err := SidRootDir()
	if err != nil {
		return notReady("%v", err)
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// setup's log says why an attempt failed (no network, no user
		// namespaces).
		if log := filepath.Join(filepath.Dir(dir), "sid.log"); isFile(log) {
			return notReady("the sid root is not made (no %s; the log of setup's last attempt is %s)", dir, log)
		}
		return notReady("the sid root is not made (no %s)", dir)
	}
	marker, err := os.ReadFile(filepath.Join(dir, rootMarker))
	if err != nil {
		return notReady("the sid root %s is half made (no %s: an interrupted set-up?): it is not used; setup makes it again", dir, rootMarker)
	}
	path, _, why, err := trust.Foreign(dir)
	if err != nil {
		return notReady("the sid root %s: %v", dir, err)
	}
	if why != "" {
		return toolRoot{}, Toolchain{Install: "rm -rf " + dir + "; " + rootInstall,
			Problem: fmt.Sprintf("the sid root's directory %s %s, so another local user could have changed its programs: it is not used", path, why)}
	}
	for _, top := range []string{"usr", "usr/bin", "etc", "var", rootMarker} {
		fi, err := os.Lstat(filepath.Join(dir, top))
		if err != nil {
			return notReady("the sid root %s is half made (%v): it is not used; setup makes it again", dir, err)
		}
		if why := trust.Owned(fi, false); why != "" {
			return toolRoot{}, Toolchain{Install: "rm -rf " + dir + "; " + rootInstall,
				Problem: fmt.Sprintf("the sid root's %s %s, so another local user could have changed its programs: it is not used", filepath.Join(dir, top), why)}
		}
	}
	if why := proc.Missing("bwrap"); why != "" {
		return toolRoot{}, Toolchain{Install: "apt-get install -y bubblewrap", Problem: "bwrap, which runs the sid root's tools, " + why}
	}
	return toolRoot{dir: dir, versions: strings.TrimSpace(string(marker))}, Toolchain{Present: true}
}

// system says whether the root is this machine's own.
func (r toolRoot) system() bool { return r.dir == "" }

// command is argv run from the root, in workDir, with binds (directories
// the tool reads or writes: a build, a cache) visible at their own paths.
// For the system's root it is argv itself.
func (r toolRoot) command(argv []string, workDir string, binds ...string) []string {
	if r.system() {
		return argv
	}
	w := []string{"bwrap", "--die-with-parent"}
	entries, _ := os.ReadDir(r.dir)
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(filepath.Join(r.dir, name)); err == nil {
				w = append(w, "--symlink", target, "/"+name)
			}
		case name == "usr" || name == "etc" || name == "var" || name == "opt":
			w = append(w, "--ro-bind", filepath.Join(r.dir, name), "/"+name)
		}
	}
	w = append(w, "--dev-bind", "/dev", "/dev", "--bind", "/proc", "/proc", "--ro-bind", "/sys", "/sys",
		"--bind", os.TempDir(), os.TempDir())
	seen := map[string]bool{os.TempDir(): true}
	paths := append(slices.Clone(binds), workDir)
	// A directory before those inside it.
	slices.SortFunc(paths, func(a, b string) int { return len(a) - len(b) })
	for _, p := range paths {
		if p == "" || seen[p] || strings.HasPrefix(p, os.TempDir()+"/") {
			continue
		}
		seen[p] = true
		w = append(w, "--bind", p, p)
	}
	if workDir != "" {
		w = append(w, "--chdir", workDir)
	}
	// The root's own programs, not this machine's.
	w = append(w, "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--")
	return append(w, argv...)
}

// rootPrefix is what a browser of the named root is started under (the
// root's bwrap, up to the browser's own command line), checked when it
// starts; nil for the system's.
func rootPrefix(name string) func() ([]string, error) {
	if name == "" || name == RootSystem {
		return nil
	}
	return func() ([]string, error) {
		root, tc := openRoot(name)
		if !tc.Present {
			return nil, fmt.Errorf("the browser's root: %s (fix: %s)", tc.Problem, tc.Install)
		}
		return root.command(nil, ""), nil
	}
}

// missing is proc.Missing for a command of the root: looked up in the
// root's own directories.
func (r toolRoot) missing(name string) string {
	if r.system() {
		return proc.Missing(name)
	}
	candidates := []string{filepath.Join(r.dir, name)}
	if !strings.Contains(name, "/") {
		candidates = nil
		for _, d := range []string{"usr/local/bin", "usr/bin"} {
			candidates = append(candidates, filepath.Join(r.dir, d, name))
		}
	}
	for _, c := range candidates {
		// A root's /usr/bin holds symbolic links relative to the root
		// (alternatives): ask Lstat, and trust the package.
		if fi, err := os.Lstat(c); err == nil && (fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&0o111 != 0) {
			return ""
		}
	}
	return fmt.Sprintf("%q is not in the sid root %s (sid no longer serves it? see .ci/setup's output)", name, r.dir)
}

// version is a tool's version words with the root's packages after them,
// so that each run's provenance names what the root held.
func (r toolRoot) version(tool string) string {
	if r.system() {
		return tool
	}
	return tool + " [" + r.versions + "]"
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
