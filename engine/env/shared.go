// Helpers that several kinds share: tool probes, the browsers' settings,
// file copies and small text helpers. A kind's own file holds only what
// that kind alone needs.

package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/browser"
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

// chromiumSettings are #ChromiumRun's fields.
type chromiumSettings struct {
	Chromium      string   `json:"chromium"`
	ChromiumFlags []string `json:"chromium_flags"`
}

// toolchain returns the browser's version, or what is wrong.
func (s chromiumSettings) toolchain(ctx context.Context) (version, problem string) {
	if why := proc.Missing(s.Chromium); why != "" {
		return "", "browser " + why
	}
	v, err := browser.Version(ctx, s.Chromium)
	if err != nil {
		return "", err.Error()
	}
	return v, ""
}

// run opens page from the build directory in a fresh browser.
func (s chromiumSettings) run(ctx context.Context, r Repetition, page string) (Outcome, error) {
	return browser.Run(ctx, browser.Page{
		Dir:      r.BuildDir,
		Path:     page,
		Argv:     []string{string(r.Benchmark), fmt.Sprint(r.Arg)},
		CPUs:     r.CPUs,
		Chromium: s.Chromium,
		Flags:    s.ChromiumFlags,
		Stdout:   r.Stdout,
	})
}

// firefoxSettings are #FirefoxRun's fields.
type firefoxSettings struct {
	Firefox      string   `json:"firefox"`
	FirefoxFlags []string `json:"firefox_flags"`
}

func (s firefoxSettings) browser() browser.Firefox {
	return browser.Firefox{Command: s.Firefox, Flags: s.FirefoxFlags}
}

// toolchain returns the browser's version, or what is wrong.
func (s firefoxSettings) toolchain(ctx context.Context) (version, problem string) {
	if why := proc.Missing(s.Firefox); why != "" {
		return "", "browser " + why
	}
	v, err := s.browser().Version(ctx)
	if err != nil {
		return "", err.Error()
	}
	return v, ""
}

// run opens page from the build directory in a fresh Firefox.
func (s firefoxSettings) run(ctx context.Context, r Repetition, page string) (Outcome, error) {
	return browser.Run(ctx, browser.Page{
		Dir:     r.BuildDir,
		Path:    page,
		Argv:    []string{string(r.Benchmark), fmt.Sprint(r.Arg)},
		CPUs:    r.CPUs,
		Browser: s.browser(),
		Stdout:  r.Stdout,
	})
}

// copyManual copies manual/ into the build directory, which is all the
// page server may serve.
func copyManual(srcDir, outDir string) error {
	if err := os.CopyFS(outDir, os.DirFS(filepath.Join(srcDir, "manual"))); err != nil {
		return fmt.Errorf("copy manual/ to the build directory: %w", err)
	}
	return nil
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
	if root, err := sourceRoot(); err == nil {
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
