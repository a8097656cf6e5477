package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"spawnbench/engine/proc"
)

// wasiThreads: the C benchmarks compiled for wasm32-wasi-threads over
// c/wasi/ (no libc), run by `spawnbench wasmtime`, the Wasmtime embedded in
// spawnbench (engine/wasmhost), one fresh process per repetition.
type wasiThreads struct {
	name string
	cfg  wasiThreadsSettings
}

type wasiThreadsSettings struct {
	wasiThreadsBuild
	// The embedded host's knobs (see kind_wasithreads.cue).
	HostThreads   string `json:"host_threads"`
	InstantiateOn string `json:"instantiate_on"`
	Allocation    string `json:"allocation"`
	MaxThreads    int    `json:"max_threads"`
	// PoolInstances sizes the pooling allocator; 0 (or absent from the
	// schema) leaves the host's default.
	PoolInstances int    `json:"pool_instances"`
	Prestart      int    `json:"prestart_threads"`
	IdleSpin      string `json:"idle_spin"`
}

// wasiThreadsBuild are the build settings (#WasiThreadsBuild in the
// schema), shared by every kind that runs the wasi-threads .wasm files:
// those kinds build them with this kind's code (builder).
type wasiThreadsBuild struct {
	CC        string   `json:"cc"`
	Linker    string   `json:"linker"`
	CFlags    []string `json:"cflags"`
	MaxMemory int64    `json:"max_memory"`
	StackSize int64    `json:"stack_size"`
}

// builder returns a wasi-threads environment that builds with s.
func (s wasiThreadsBuild) builder(name string) *wasiThreads {
	return &wasiThreads{name: name, cfg: wasiThreadsSettings{wasiThreadsBuild: s}}
}

// HostExecutable finds the spawnbench binary that runs the modules (its
// `wasmtime` subcommand). It is this executable by default; tests, which
// run as a test binary, point it at a freshly built spawnbench.
var HostExecutable = func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the spawnbench executable: %w", err)
	}
	return exe, nil
}

func init() {
	Register("wasi-threads", "C over a freestanding wasi-threads runtime, run on the Wasmtime embedded in spawnbench",
		func(name string, cfg wasiThreadsSettings) Environment { return &wasiThreads{name: name, cfg: cfg} })
}

func (e *wasiThreads) Name() string { return e.name }
func (e *wasiThreads) Kind() string { return "wasi-threads" }

func (e *wasiThreads) Toolchain(ctx context.Context) Toolchain {
	const install = "apt-get install -y clang-16 lld-16"
	var versions []string
	for _, tool := range []string{e.cfg.CC, e.cfg.Linker} {
		if why := proc.Missing(tool); why != "" {
			return Toolchain{Install: install, Problem: why}
		}
		out, err := proc.Output(ctx, "", tool, "--version")
		if err != nil {
			return Toolchain{Install: install, Problem: err.Error()}
		}
		versions = append(versions, firstLine(out))
	}
	versions = append(versions, "host "+wasmtimeGoVersion())
	return Toolchain{Present: true, Version: strings.Join(versions, "; "), Install: install}
}

// wasmtimeGoVersion names the embedded Wasmtime, from the build's module
// list.
func wasmtimeGoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "github.com/bytecodealliance/wasmtime-go") {
				return dep.Path + " " + dep.Version
			}
		}
	}
	return "wasmtime-go (version unknown)"
}

func (e *wasiThreads) BuildKey(ctx context.Context) string {
	return fmt.Sprintf("wasi-threads|%s|%s|%q|%d|%d|%s", e.cfg.CC, e.cfg.Linker, e.cfg.CFlags,
		e.cfg.MaxMemory, e.cfg.StackSize, e.Toolchain(ctx).Version)
}

// compile runs the compiler on one source into one object.
func (e *wasiThreads) compile(ctx context.Context, srcDir, src, obj string) error {
	argv := []string{e.cfg.CC, "--target=wasm32-wasi-threads", "-matomics", "-mbulk-memory",
		"-ffreestanding", "-nostdlib", fmt.Sprintf("-DSBRT_STACK_SIZE=%d", e.cfg.StackSize)}
	argv = append(argv, e.cfg.CFlags...)
	argv = append(argv, "-I", filepath.Join(srcDir, "c"), "-c", "-o", obj, src)
	if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
		return fmt.Errorf("compile %s: %w", filepath.Base(src), err)
	}
	return nil
}

func (e *wasiThreads) Build(ctx context.Context, srcDir, outDir string) error {
	objDir := filepath.Join(outDir, "obj")
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return fmt.Errorf("make object directory: %w", err)
	}
	runtimeObjs := []string{filepath.Join(objDir, "sbrt.o"), filepath.Join(objDir, "thread_start.o")}
	for i, src := range []string{"sbrt.c", "thread_start.s"} {
		if err := e.compile(ctx, srcDir, filepath.Join(srcDir, "c", "wasi", src), runtimeObjs[i]); err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
	}
	for _, b := range Benchmarks {
		obj := filepath.Join(objDir, string(b)+".o")
		if err := e.compile(ctx, srcDir, filepath.Join(srcDir, "c", string(b)+".c"), obj); err != nil {
			return err
		}
		argv := []string{e.cfg.Linker, "--import-memory", "--export-memory", "--shared-memory",
			fmt.Sprintf("--max-memory=%d", e.cfg.MaxMemory),
			"-z", fmt.Sprintf("stack-size=%d", e.cfg.StackSize),
			"-o", filepath.Join(outDir, string(b)+".wasm"), obj}
		argv = append(argv, runtimeObjs...)
		if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
			return fmt.Errorf("link %s: %w", b, err)
		}
	}
	return nil
}

func (e *wasiThreads) Run(ctx context.Context, r Repetition) (Outcome, error) {
	exe, err := HostExecutable()
	if err != nil {
		return Outcome{}, err
	}
	argv := []string{exe, "wasmtime",
		"--threads", e.cfg.HostThreads,
		"--instantiate", e.cfg.InstantiateOn,
		"--allocation", e.cfg.Allocation,
		"--max-threads", fmt.Sprint(e.cfg.MaxThreads),
		"--prestart-threads", fmt.Sprint(e.cfg.Prestart),
		"--spin", e.cfg.IdleSpin,
		// The host notes each thread's CPUs after the clock reads and
		// prints them after the benchmark's lines: WASI cannot tell them.
		"--placement"}
	if e.cfg.PoolInstances > 0 {
		argv = append(argv, "--pool-instances", fmt.Sprint(e.cfg.PoolInstances))
	}
	argv = append(argv, filepath.Join(r.BuildDir, string(r.Benchmark)+".wasm"), fmt.Sprint(r.Arg))
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}
