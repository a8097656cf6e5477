// Helpers that several payloads and hosts share: tool probes, file copies
// and small text helpers. A payload's or host's own file holds only what
// it alone needs.

package env

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
func nodeVersion(ctx context.Context, root toolRoot, node string, flags ...string) (string, error) {
	if why := root.missing(node); why != "" {
		return "", fmt.Errorf("node command %s", why)
	}
	argv := append(append([]string{node}, flags...), "-p", "'Node.js ' + process.version")
	out, err := proc.ToolFact(ctx, root.command(argv, "")...)
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
	out, err := proc.ToolFact(ctx, path, "--version")
	if err != nil {
		return "", "", err
	}
	return path, firstLine(out), nil
}

// probedToolchain is the Toolchain of a runtime found and versioned as
// toolVersion says, then checked by probe (one real spawn, say), so a
// runtime that cannot run the benchmarks is not ready rather than a
// failed run.
func probedToolchain(ctx context.Context, tool, install string, probe func(ctx context.Context, path string) error) Toolchain {
	path, version, err := toolVersion(ctx, tool)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	if err := probe(ctx, path); err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: version, Install: install}
}

//go:embed spawn_probe.wasm
var spawnProbeModule []byte

// runSpawnProbe runs the command command(module) makes for the probe module
// (spawn_probe.wat: one wasi-threads spawn, whose thread the main thread
// waits for), written to a temporary file: said is "" when the thread
// ran, else what the runtime printed, on one line. err is for the probe
// that could not be run to its end (ctx ended, no temporary directory);
// host names the host in it. The answer is kept for the process by the
// runtime and its flags, which tool names (proc.Fact), as a version is:
// every environment of the host asks it when checked.
func runSpawnProbe(ctx context.Context, host string, tool []string, command func(module string) proc.Command) (said string, err error) {
	question := strings.Join(append([]string{"spawn probe", host}, tool...), "\x00")
	return proc.Fact(question, func() (string, error) {
		module, remove, err := probeFile(host, spawnProbeModule)
		if err != nil {
			return "", err
		}
		defer remove()
		if _, err := proc.OutputOf(ctx, command(module)); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("%s probe: %w", host, err)
			}
			return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " | ")), " "), nil
		}
		return "", nil
	})
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

// pageHost is what the browser hosts (chromium, firefox) share: a page
// of the run directory, served from a loopback server and cross-origin
// isolated, opened in a warm browser (one per environment and run, a fresh
// context per repetition) or in a cold one (a fresh browser per
// repetition), as the host's browser_start says.
type pageHost struct {
	b       browser.Browser
	install string
	// warm is the environment's browser; nil for a cold start.
	warm *browser.Warm
	// workerCap is the workers one origin may run at once (0: no cap
	// spawnbench knows of).
	workerCap int
	// root is the toolchain root the browser comes from (root.go).
	root string
}

// newPageHost makes the host of b; start is the schema's browser_start,
// "warm" or "cold".
func newPageHost(b browser.Browser, start, install string, workerCap int) *pageHost {
	h := &pageHost{b: b, install: install, workerCap: workerCap}
	if start != "cold" {
		h.warm = browser.NewWarm(b)
	}
	return h
}

// CappedStall is how long a repetition that needs more live workers than
// its browser allows may run before it is stopped: long enough to finish
// should the cap not bite after all (its numbers are then kept as any),
// short against the timeout it would otherwise sit out.
var CappedStall = 20 * time.Second

func (h *pageHost) Toolchain(ctx context.Context) Toolchain {
	root, tc := openRoot(h.root)
	if !tc.Present {
		return tc
	}
	install := h.install
	if !root.system() {
		install = rootInstall
	}
	if why := root.missing(h.b.Executable()); why != "" {
		return Toolchain{Install: install, Problem: "browser " + why}
	}
	v, err := h.b.Version(ctx)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: root.version(v), Install: install}
}

func (h *pageHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	page := browser.Page{Dir: r.BuildDir, Path: e.File, Argv: e.Args, CPUs: r.CPUs, Browser: h.b, Stdout: r.Stdout}
	run := browser.Run
	if h.warm != nil {
		run = h.warm.Run
	}
	if h.workerCap == 0 || e.LiveWorkers <= h.workerCap {
		return run(ctx, page)
	}
	// The page needs more workers alive at once than the browser lets an
	// origin run: past the cap a new worker waits for one to end, and
	// none ends before the page does. Give it a short while (it is kept
	// if it finishes), then say why it stalled.
	sctx, cancel := context.WithTimeout(ctx, CappedStall)
	defer cancel()
	out, err := run(sctx, page)
	if err == nil && out.TimedOut && ctx.Err() == nil {
		out.Limit = fmt.Sprintf("needs %d workers alive at once, but %s lets an origin run %d (dom.workers.maxPerDomain), so the page stalled; stopped after %s. "+
			"Measure it with a variant that raises the cap, e.g. firefox_prefs: {\"dom.workers.maxPerDomain\": %d}",
			e.LiveWorkers, h.b.Name(), h.workerCap, CappedStall, 2*e.LiveWorkers)
	}
	return out, err
}

// Close ends the warm browser, if one runs.
func (h *pageHost) Close() error {
	if h.warm == nil {
		return nil
	}
	return h.warm.Close()
}

// probeFile writes a runtime's probe (a module or component) into a
// directory of its own and returns its path and the removal of both.
func probeFile(host string, content []byte) (path string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "spawnbench-"+host+"-probe-")
	if err != nil {
		return "", nil, fmt.Errorf("%s probe: %w", host, err)
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "probe.wasm")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		remove()
		return "", nil, fmt.Errorf("%s probe: %w", host, err)
	}
	return path, remove, nil
}
