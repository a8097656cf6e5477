// Helpers that several payloads and hosts share: tool probes, file copies
// and small text helpers. A payload's or host's own file holds only what
// it alone needs.

package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/proc"
)

// debianPackageFor guesses the Debian package of a compiler command,
// for the install hint.
func debianPackageFor(cc string) string {
	base := filepath.Base(cc)
	switch {
	case strings.HasPrefix(base, "clang"):
		return base
	case base == "cc" || strings.HasPrefix(base, "gcc"):
		return "gcc"
	}
	return base
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// nodeVersion checks that node runs, with flags, and returns its version.
func nodeVersion(ctx context.Context, node string, flags ...string) (string, error) {
	if why := proc.Missing(node); why != "" {
		return "", fmt.Errorf("node command %s", why)
	}
	argv := append(append([]string{node}, flags...), "-p", "'Node.js ' + process.version")
	out, err := proc.Output(ctx, "", argv...)
	if err != nil {
		return "", fmt.Errorf("node does not run with %q: %w", flags, err)
	}
	return firstLine(out), nil
}

func withoutEnv(environ []string, names ...string) []string {
	out := environ[:0:0]
outer:
	for _, kv := range environ {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}

// joinInstalls joins the install hints of an environment's parts: apt
// package lists into one command, the rest after it.
func joinInstalls(hints []string) string {
	const apt = "apt-get install -y "
	var pkgs, other []string
	for _, h := range hints {
		switch {
		case h == "":
		case strings.HasPrefix(h, apt):
			for _, p := range strings.Fields(strings.TrimPrefix(h, apt)) {
				if !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			}
		case !slices.Contains(other, h):
			other = append(other, h)
		}
	}
	if len(pkgs) > 0 {
		other = append([]string{apt + strings.Join(pkgs, " ")}, other...)
	}
	return strings.Join(other, "; ")
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", filepath.Base(from), err)
	}
	if err := atomicfile.WriteBytes(to, b); err != nil {
		return fmt.Errorf("copy %s: %w", filepath.Base(from), err)
	}
	return nil
}

// toolVersion finds a tool as toolPath does and reads the first line of
// its --version: what a host's Toolchain reports.
func toolVersion(ctx context.Context, name string) (path, version string, err error) {
	if path, err = toolPath(name); err != nil {
		return "", "", err
	}
	out, err := proc.Output(ctx, "", path, "--version")
	if err != nil {
		return "", "", err
	}
	return path, firstLine(out), nil
}

// toolPath finds a tool that .ci/setup installs into the project's bin/
// rather than on PATH: a path is taken as it is; a name is looked up on
// PATH, then next to the running spawnbench (bin/), then in the bin/ of
// the source tree the working directory is in (for tests, which run from
// a package directory).
func toolPath(name string) (string, error) {
	if strings.ContainsRune(name, os.PathSeparator) {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("%q: %w", name, err)
		}
		return name, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if root, err := sourceRoot(); err == nil && !slices.Contains(dirs, filepath.Join(root, "bin")) {
		dirs = append(dirs, filepath.Join(root, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q is not on PATH, nor in %s", name, strings.Join(dirs, " or "))
}

// sourceRoot is the spawnbench source tree that holds the working
// directory: the nearest parent with spawnbench's go.mod.
func sourceRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module spawnbench\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the spawnbench source tree")
		}
		dir = parent
	}
}
