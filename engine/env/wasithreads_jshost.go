package env

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/proc"
)

// The JavaScript wasi-threads host: the wasi-threads kind's very .wasm
// files, run by npm's @emnapi/wasi-threads (the host that emnapi and
// @napi-rs/wasm-runtime ship) with @tybys/wasm-util's WASI preview1, in
// Node.js (wasi-threads-node) or in a browser (wasi-threads-chromium,
// wasi-threads-firefox). The host's own code is jshost/*.mjs; the npm
// packages are pinned by jshost/package-lock.json and installed by
// .ci/setup (`npm ci`), and the build copies their files next to the
// .wasm, so a page is served everything from the build directory and
// nothing is fetched from anywhere else.
//
// Per spawn the host does what it does by default: the thread that owns
// the ThreadManager (Node.js's main thread, the page) starts a new worker,
// sends it the module and the memory, and terminates it when its thread
// returns. reuse_worker and pool_size turn on the host's own pool.

// jsHostSettings are the settings every JavaScript-host kind shares.
type jsHostSettings struct {
	wasiThreadsBuild
	// ReuseWorker keeps a finished thread's worker for the next spawn
	// (@emnapi/wasi-threads' reuseWorker); PoolSize workers are started
	// and loaded before _start.
	ReuseWorker bool `json:"reuse_worker"`
	PoolSize    int  `json:"pool_size"`
}

// jsHostPackages are the npm packages the host needs and the one file of
// each it uses, self-contained, under the name the host imports it by.
// wasm-util's "esm" build is not used: it was built with syscall tracing
// turned on (every WASI call is printed with console.debug).
var jsHostPackages = []struct{ pkg, file, as string }{
	{"@emnapi/wasi-threads", "dist/wasi-threads.js", "wasi-threads.mjs"},
	{"@tybys/wasm-util", "dist/wasm-util.esm-bundler.js", "wasm-util.mjs"},
}

// jsHostInstall is how the packages get installed.
const jsHostInstall = "bash .ci/setup (npm ci in jshost/)"

// jsHostModules finds jshost/node_modules: next to the bin/ directory of
// the running spawnbench, or in the source tree the working directory is
// in (for tests).
func jsHostModules() (string, error) {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(filepath.Dir(exe)), "jshost", "node_modules"))
	}
	if root, err := sourceRoot(); err == nil {
		dirs = append(dirs, filepath.Join(root, "jshost", "node_modules"))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, jsHostPackages[0].pkg, "package.json")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("the npm packages of the JavaScript wasi-threads host are not installed (looked in %s)", strings.Join(dirs, " and "))
}

// jsHostVersions returns the installed packages' names and versions, e.g.
// "@emnapi/wasi-threads 2.2.0, @tybys/wasm-util 0.10.5".
func jsHostVersions() (string, error) {
	modules, err := jsHostModules()
	if err != nil {
		return "", err
	}
	var out []string
	for _, p := range jsHostPackages {
		b, err := os.ReadFile(filepath.Join(modules, p.pkg, "package.json"))
		if err != nil {
			return "", fmt.Errorf("read %s's package.json: %w", p.pkg, err)
		}
		var meta struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return "", fmt.Errorf("%s's package.json: %w", p.pkg, err)
		}
		out = append(out, p.pkg+" "+meta.Version)
	}
	return strings.Join(out, ", "), nil
}

// hostConfig is jshost.json: the host's own options.
func (s jsHostSettings) hostConfig() ([]byte, error) {
	var reuse any = false
	if s.ReuseWorker {
		reuse = map[string]any{"size": s.PoolSize, "strict": false}
	}
	return json.Marshal(map[string]any{"reuseWorker": reuse})
}

// key is the part of a build key the host adds to the wasi-threads
// build's: the packages' files and the host's options. (The host's own
// .mjs files are among the sources the runner hashes.)
func (s jsHostSettings) key(ctx context.Context, b *wasiThreads) string {
	h := sha256.New()
	if modules, err := jsHostModules(); err == nil {
		for _, p := range jsHostPackages {
			data, _ := os.ReadFile(filepath.Join(modules, p.pkg, p.file))
			h.Write(data)
		}
	}
	config, _ := s.hostConfig()
	return fmt.Sprintf("%s|jshost %x|%s", b.BuildKey(ctx), h.Sum(nil), config)
}

// build builds the .wasm files with the wasi-threads kind's code, then
// puts the host beside them.
func (s jsHostSettings) build(ctx context.Context, b *wasiThreads, srcDir, outDir string) error {
	if err := b.Build(ctx, srcDir, outDir); err != nil {
		return err
	}
	host, _ := filepath.Glob(filepath.Join(srcDir, "jshost", "*.mjs"))
	pages, _ := filepath.Glob(filepath.Join(srcDir, "jshost", "*.html"))
	host = append(host, pages...)
	if len(host) == 0 {
		return fmt.Errorf("the host's sources are not in %s", filepath.Join(srcDir, "jshost"))
	}
	for _, f := range host {
		if err := copyFile(f, filepath.Join(outDir, filepath.Base(f))); err != nil {
			return err
		}
	}
	modules, err := jsHostModules()
	if err != nil {
		return err
	}
	for _, p := range jsHostPackages {
		if err := copyFile(filepath.Join(modules, p.pkg, p.file), filepath.Join(outDir, p.as)); err != nil {
			return fmt.Errorf("%s: %w", p.pkg, err)
		}
	}
	config, err := s.hostConfig()
	if err != nil {
		return fmt.Errorf("encode jshost.json: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(outDir, "jshost.json"), config); err != nil {
		return fmt.Errorf("write jshost.json: %w", err)
	}
	return nil
}

// jsHostToolchain checks the build's tools and the packages.
func jsHostToolchain(ctx context.Context, b *wasiThreads) (Toolchain, string) {
	tc := b.Toolchain(ctx)
	if !tc.Present {
		return tc, ""
	}
	pkgs, err := jsHostVersions()
	if err != nil {
		return Toolchain{Install: jsHostInstall, Problem: err.Error()}, ""
	}
	compilers := strings.Split(tc.Version, "; host ")[0]
	return Toolchain{Present: true, Install: jsHostInstall}, pkgs + "; " + compilers
}

// wasiThreadsNode: the JavaScript host in Node.js (jshost/node.mjs), one
// fresh `node` process per repetition.
type wasiThreadsNode struct {
	name  string
	cfg   wasiThreadsNodeSettings
	build *wasiThreads
}

type wasiThreadsNodeSettings struct {
	jsHostSettings
	Node      string   `json:"node"`
	NodeFlags []string `json:"node_flags"`
}

func init() {
	Register("wasi-threads-node", "the wasi-threads build, run by npm's @emnapi/wasi-threads in Node.js (a worker per spawn)",
		func(name string, cfg wasiThreadsNodeSettings) Environment {
			return &wasiThreadsNode{name: name, cfg: cfg, build: cfg.builder(name)}
		})
}

func (e *wasiThreadsNode) Name() string { return e.name }
func (e *wasiThreadsNode) Kind() string { return "wasi-threads-node" }

func (e *wasiThreadsNode) Toolchain(ctx context.Context) Toolchain {
	tc, pkgs := jsHostToolchain(ctx, e.build)
	if !tc.Present {
		return tc
	}
	node, err := nodeVersion(ctx, e.cfg.Node, e.cfg.NodeFlags...)
	if err != nil {
		return Toolchain{Install: "apt-get install -y nodejs", Problem: err.Error()}
	}
	tc.Version = node + "; " + pkgs
	return tc
}

func (e *wasiThreadsNode) BuildKey(ctx context.Context) string {
	return e.cfg.key(ctx, e.build)
}

func (e *wasiThreadsNode) Build(ctx context.Context, srcDir, outDir string) error {
	return e.cfg.build(ctx, e.build, srcDir, outDir)
}

func (e *wasiThreadsNode) Run(ctx context.Context, r Repetition) (Outcome, error) {
	argv := append([]string{e.cfg.Node}, e.cfg.NodeFlags...)
	argv = append(argv, filepath.Join(r.BuildDir, "node.mjs"),
		filepath.Join(r.BuildDir, string(r.Benchmark)+".wasm"), fmt.Sprint(r.Arg))
	return proc.Run(ctx, proc.Command{Argv: argv, Dir: r.BuildDir, CPUs: r.CPUs, Stdout: r.Stdout})
}

// wasiThreadsChromium: the JavaScript host in headless Chromium
// (jshost/page.html), a fresh browser per repetition.
type wasiThreadsChromium struct {
	name  string
	cfg   wasiThreadsChromiumSettings
	build *wasiThreads
}

type wasiThreadsChromiumSettings struct {
	jsHostSettings
	chromiumSettings
}

func init() {
	Register("wasi-threads-chromium", "the wasi-threads build, run by npm's @emnapi/wasi-threads in headless Chromium (a Web Worker per spawn)",
		func(name string, cfg wasiThreadsChromiumSettings) Environment {
			return &wasiThreadsChromium{name: name, cfg: cfg, build: cfg.builder(name)}
		})
}

func (e *wasiThreadsChromium) Name() string { return e.name }
func (e *wasiThreadsChromium) Kind() string { return "wasi-threads-chromium" }

func (e *wasiThreadsChromium) Toolchain(ctx context.Context) Toolchain {
	tc, pkgs := jsHostToolchain(ctx, e.build)
	if !tc.Present {
		return tc
	}
	chromium, problem := e.cfg.chromiumSettings.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: chromiumInstall, Problem: problem}
	}
	tc.Version = chromium + "; " + pkgs
	return tc
}

func (e *wasiThreadsChromium) BuildKey(ctx context.Context) string {
	return e.cfg.key(ctx, e.build)
}

func (e *wasiThreadsChromium) Build(ctx context.Context, srcDir, outDir string) error {
	return e.cfg.build(ctx, e.build, srcDir, outDir)
}

func (e *wasiThreadsChromium) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.chromiumSettings.run(ctx, r, "page.html")
}
