package env

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"spawnbench/engine/proc"
)

// wasiLibc: the C benchmarks compiled for wasm32-wasi-threads against a
// real wasi-libc built with POSIX threads, as a wasi-sdk user builds them:
// the libc's own pthread_create, clock_gettime and printf, one .wasm per
// benchmark. It runs wherever the freestanding build runs (the
// WebAssembly runtimes as it is, Node.js and the browsers on the
// JavaScript wasi-threads host), so the two builds compare host by host.
type wasiLibc struct {
	cfg wasiLibcSettings
}

type wasiLibcSettings struct {
	CC string `json:"cc"`
	// Sysroot is a wasi-libc sysroot; "" is the one .ci/setup builds.
	Sysroot   string   `json:"sysroot"`
	CFlags    []string `json:"cflags"`
	MaxMemory int64    `json:"max_memory"`
	StackSize int64    `json:"stack_size"`
	// The JavaScript host's options, as for wasi-freestanding.
	jsHostSettings
}

// wasiLibcTag is the wasi-libc release .ci/setup builds, from
// ../shared/vendor/wasi-libc-<tag>.tar.gz into .tools/wasi-libc-<tag>/.
const wasiLibcTag = "wasi-sdk-25"

// wasiLibcInstall says how to get a sysroot.
const wasiLibcInstall = "bash .ci/setup with ../shared/vendor/wasi-libc-" + wasiLibcTag + ".tar.gz present " +
	"(builds .tools/wasi-libc-" + wasiLibcTag + "/sysroot), or set the payload's cc and sysroot to a wasi-sdk's " +
	"(bin/clang, share/wasi-sysroot)"

// wasiLibcThreadsLib is the file a sysroot built with THREAD_MODEL=posix
// has and a single-threaded one lacks.
const wasiLibcThreadsLib = "lib/wasm32-wasi-threads/libc.a"

func init() {
	RegisterPayload("wasi-libc", "C over wasi-libc's POSIX threads (as wasi-sdk builds it), one .wasm per benchmark",
		[]Form{FormModule, FormScript, FormPage}, PayloadFacts{},
		func(cfg wasiLibcSettings) Payload { return &wasiLibc{cfg: cfg} })
}

// sysroot is the sysroot the build uses: the setting, or the one
// .ci/setup builds, next to the bin/ of the running spawnbench or in the
// source tree the working directory is in (for tests).
func (p *wasiLibc) sysroot() (string, error) {
	if p.cfg.Sysroot != "" {
		if _, err := os.Stat(p.cfg.Sysroot); err != nil {
			return "", fmt.Errorf("sysroot %q: %w", p.cfg.Sysroot, err)
		}
		return p.cfg.Sysroot, nil
	}
	rel := filepath.Join(".tools", "wasi-libc-"+wasiLibcTag, "sysroot")
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(filepath.Dir(exe)), rel))
	}
	if root, err := sourceRoot(); err == nil {
		dirs = append(dirs, filepath.Join(root, rel))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, wasiLibcThreadsLib)); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("wasi-libc with POSIX threads is not built (looked for %s in %s)", rel, strings.Join(dirs, " and "))
}

// sysrootSource names a sysroot's origin: the SOURCE file .ci/setup
// writes ("wasi-libc wasi-sdk-25 (574b88d)"), a wasi-sdk's VERSION two
// levels up (its share/wasi-sysroot), or the path.
func sysrootSource(sysroot string) string {
	if b, err := os.ReadFile(filepath.Join(sysroot, "SOURCE")); err == nil {
		return firstLine(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(sysroot, "..", "..", "VERSION")); err == nil {
		return "wasi-sdk " + firstLine(string(b)) + " sysroot " + sysroot
	}
	return "wasi-libc sysroot " + sysroot + " (version unknown)"
}

func (p *wasiLibc) Toolchain(ctx context.Context) Toolchain {
	if why := proc.Missing(p.cfg.CC); why != "" {
		return Toolchain{Install: "apt-get install -y " + debianPackageFor(p.cfg.CC) + " lld-16", Problem: why}
	}
	out, err := proc.ToolFact(ctx, p.cfg.CC, "--version")
	if err != nil {
		return Toolchain{Install: wasiLibcInstall, Problem: err.Error()}
	}
	cc := firstLine(out)
	// The compiler's wasm32 builtins (compiler-rt), which every program
	// links: Debian ships them apart from clang.
	rt, err := proc.ToolFact(ctx, p.cfg.CC, "--target=wasm32-wasi-threads", "--print-libgcc-file-name")
	if err != nil {
		return Toolchain{Install: wasiLibcInstall, Problem: err.Error()}
	}
	if rt = strings.TrimSpace(rt); rt != "" {
		if _, err := os.Stat(rt); err != nil {
			return Toolchain{Install: "apt-get install -y libclang-rt-16-dev-wasm32",
				Problem: fmt.Sprintf("%s's wasm32 builtins %s are not installed", p.cfg.CC, rt)}
		}
	}
	sysroot, err := p.sysroot()
	if err != nil {
		return Toolchain{Install: wasiLibcInstall, Problem: err.Error()}
	}
	if _, err := os.Stat(filepath.Join(sysroot, wasiLibcThreadsLib)); err != nil {
		return Toolchain{Install: wasiLibcInstall,
			Problem: fmt.Sprintf("sysroot %s has no %s: it was not built with POSIX threads (THREAD_MODEL=posix)", sysroot, wasiLibcThreadsLib)}
	}
	return Toolchain{Present: true, Version: cc + "; " + sysrootSource(sysroot), Install: wasiLibcInstall}
}

// BuildKey names the settings, the tools and the libc itself (a hash of
// its libc.a), so a rebuilt sysroot rebuilds the benchmarks.
func (p *wasiLibc) BuildKey(ctx context.Context) string {
	libc := "absent"
	if sysroot, err := p.sysroot(); err == nil {
		if h, err := fileHash(filepath.Join(sysroot, wasiLibcThreadsLib)); err == nil {
			libc = sysroot + " " + h
		}
	}
	return fmt.Sprintf("wasi-libc|%s|%s|%q|%d|%d|%s", p.cfg.CC, libc, p.cfg.CFlags,
		p.cfg.MaxMemory, p.cfg.StackSize, p.Toolchain(ctx).Version)
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Build compiles and links each benchmark in one compiler run, as a
// wasi-sdk user does, and copies the JavaScript host's sources beside
// them. -z stack-size sets the main thread's stack and, as wasi-libc takes
// that for its default, every pthread's.
func (p *wasiLibc) Build(ctx context.Context, srcDir, outDir string) error {
	sysroot, err := p.sysroot()
	if err != nil {
		return err
	}
	for _, b := range Benchmarks {
		argv := []string{p.cfg.CC, "--target=wasm32-wasi-threads", "-pthread", "--sysroot=" + sysroot}
		argv = append(argv, p.cfg.CFlags...)
		argv = append(argv, "-I", filepath.Join(srcDir, "c"),
			"-Wl,--import-memory,--export-memory,--shared-memory",
			fmt.Sprintf("-Wl,--max-memory=%d", p.cfg.MaxMemory),
			fmt.Sprintf("-Wl,-z,stack-size=%d", p.cfg.StackSize),
			"-o", filepath.Join(outDir, string(b)+".wasm"), filepath.Join(srcDir, "c", string(b)+".c"))
		if _, err := proc.Output(ctx, srcDir, argv...); err != nil {
			return fmt.Errorf("build %s against wasi-libc: %w", b, err)
		}
	}
	return copyJSHostSources(srcDir, outDir)
}

func (p *wasiLibc) Entry(f Form, b Benchmark, arg int) Entry { return wasiModuleEntry(f, b, arg) }

// Adapter is the JavaScript wasi-threads host under Node.js and the
// browsers, as for wasi-freestanding.
func (p *wasiLibc) Adapter(f Form) Adapter { return p.cfg.adapter(f) }
