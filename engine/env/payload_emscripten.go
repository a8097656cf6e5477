package env

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
)

// emscripten: the C benchmarks built with Emscripten's emcc, one .js with
// its .wasm per benchmark (and, from Emscripten 3.1.6, a .worker.js;
// Emscripten 6 inlines the worker in the .js), and the page that opens
// one in a browser. Node.js runs a benchmark's .js; Chromium and Firefox open the
// page. Beside the build: emcc's flags, its version, and the writable
// cache emcc needs beside Debian's read-only one.
type emscripten struct{ cfg emccSettings }

func init() {
	RegisterPayload("emscripten", "C with pthreads built by Emscripten's emcc (JS + wasm)",
		[]Form{FormScript, FormPage}, PayloadFacts{Family: hostfacts.Emscripten},
		func(cfg emccSettings) Payload { return &emscripten{cfg: cfg} })
}

// emccInstall is the install hint of the build: Debian's package brings
// emcc, clang, binaryen and a Node.js.
const emccInstall = "apt-get install -y emscripten nodejs"

func (p *emscripten) Toolchain(ctx context.Context) Toolchain { return p.cfg.toolchain(ctx) }

func (p *emscripten) BuildKey(ctx context.Context) string {
	// The page is part of the build, and it lives in this file, not in
	// the sources the runner hashes.
	return fmt.Sprintf("emscripten|%s|page %x", p.cfg.key(ctx), sha256.Sum256([]byte(emscriptenHarness)))
}

func (p *emscripten) Build(ctx context.Context, srcDir, outDir string) error {
	if err := p.cfg.build(ctx, srcDir, outDir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, emscriptenPage), []byte(emscriptenHarness), 0o644); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	return nil
}

func (p *emscripten) Entry(f Form, b Benchmark, arg int) Entry {
	if f == FormPage {
		e := Entry{File: emscriptenPage, Args: []string{string(b), fmt.Sprint(arg)}}
		if b == Parallel {
			// Emscripten 3.1.6 keeps a joinable thread's worker until its
			// join, and parallel joins only after every create: n workers,
			// the pool's, and main's own when it is proxied to a pthread.
			e.LiveWorkers = arg + p.cfg.PthreadPoolSize
			if p.cfg.ProxyToPthread {
				e.LiveWorkers++
			}
		}
		return e
	}
	return Entry{File: string(b) + ".js", Args: []string{fmt.Sprint(arg)}}
}

// emscriptenPage runs one Emscripten build in the page: argv[0] names the
// benchmark's .js, the rest are main's arguments. Standard output and
// error, the exit status and aborts go to spawnbench.* (see
// engine/browser/reporter.js).
const emscriptenPage = "emscripten.html"

const emscriptenHarness = `<!doctype html>
<meta charset="utf-8">
<title>spawnbench emscripten</title>
<body>
<script>
  const [bench, ...args] = spawnbench.argv;
  // The glue reads the global Module when its script runs.
  var Module = {
    arguments: args,
    print: (line) => spawnbench.out(line),
    printErr: (line) => spawnbench.err(line),
    onExit: (code) => spawnbench.exit(code),
    onAbort: (what) => {
      spawnbench.err("Aborted(" + what + ")");
      spawnbench.exit(134);
    },
  };
  const script = document.createElement("script");
  script.src = bench + ".js";
  script.onerror = () => {
    spawnbench.err("spawnbench: cannot load " + script.src);
    spawnbench.exit(127);
  };
  document.body.appendChild(script);
</script>
`

// emccSettings are the build settings (#Payloads.emscripten).
type emccSettings struct {
	Emcc                    string   `json:"emcc"`
	Root                    string   `json:"root"`
	Optimization            string   `json:"optimization"`
	PthreadPoolSize         int      `json:"pthread_pool_size"`
	ProxyToPthread          bool     `json:"proxy_to_pthread"`
	InitialMemory           int64    `json:"initial_memory"`
	DefaultPthreadStackSize int64    `json:"default_pthread_stack_size"`
	ExtraFlags              []string `json:"extra_flags"`
}

func (s emccSettings) toolchain(ctx context.Context) Toolchain {
	root, tc := openRoot(s.Root)
	if !tc.Present {
		return tc
	}
	install := emccInstall
	if !root.system() {
		install = rootInstall
	}
	if why := root.missing(s.Emcc); why != "" {
		return Toolchain{Install: install, Problem: "emcc " + why}
	}
	out, err := emccAsk(ctx, root, s.Emcc, "--version")
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: root.version(firstLine(out)), Install: install}
}

func (s emccSettings) key(ctx context.Context) string {
	b, _ := json.Marshal(s)
	return string(b) + "|" + s.toolchain(ctx).Version
}

// flags are emcc's flags for one benchmark, from the settings.
func (s emccSettings) flags() []string {
	f := []string{
		"-O" + s.Optimization,
		"-pthread",
		// The exit status and the last of stdout reach the host only
		// when the runtime exits with main.
		"-sEXIT_RUNTIME=1",
		fmt.Sprintf("-sPTHREAD_POOL_SIZE=%d", s.PthreadPoolSize),
		fmt.Sprintf("-sINITIAL_MEMORY=%d", s.InitialMemory),
		fmt.Sprintf("-sDEFAULT_PTHREAD_STACK_SIZE=%d", s.DefaultPthreadStackSize),
	}
	if s.ProxyToPthread {
		f = append(f, "-sPROXY_TO_PTHREAD=1")
	}
	return append(f, s.ExtraFlags...)
}

// build compiles every benchmark to outDir/<bench>.js, with its .wasm
// (and an older emcc's .worker.js) beside it.
func (s emccSettings) build(ctx context.Context, srcDir, outDir string) error {
	root, tc := openRoot(s.Root)
	if !tc.Present {
		return fmt.Errorf("emcc's root: %s (fix: %s)", tc.Problem, tc.Install)
	}
	cache, err := emccCache(ctx, root, s.Emcc)
	if err != nil {
		return err
	}
	environ := append(os.Environ(),
		// Debian's emcc finds its acorn through NODE_PATH when the node on
		// PATH is not Debian's own.
		"NODE_PATH=/usr/share/nodejs",
		"EM_CACHE="+cache,
		// An empty value unfreezes the cache (emcc reads the variable as
		// Python truth, so "0" would not).
		"EM_FROZEN_CACHE=",
	)
	for _, b := range Benchmarks {
		args := append(s.flags(), "-o", filepath.Join(outDir, string(b)+".js"),
			filepath.Join(srcDir, "c", string(b)+".c"))
		argv := root.command(append([]string{s.Emcc}, args...), srcDir, outDir, cache)
		if _, err := proc.OutputOf(ctx, proc.Command{Argv: argv, Dir: srcDir, Env: environ}); err != nil {
			return fmt.Errorf("emcc %s: %s %s: %w", b, s.Emcc, strings.Join(args, " "), err)
		}
	}
	return nil
}

// emccCache returns spawnbench's own Emscripten cache for this emcc,
// seeded from the installation's cache.
//
// Debian ships emcc's system libraries prebuilt in a frozen, root-owned
// cache: enough for the default settings, but extra flags that need a
// library variant it lacks (-flto=thin, say) make a frozen cache fail,
// and an empty writable one rebuilds libc first (3.5 min on 2 cores). So spawnbench's cache holds a symbolic link to every file of
// the installation's cache, in directories of its own: emcc finds what
// is prebuilt and builds only what is missing, into spawnbench's
// directories, never into the installation's.
func emccCache(ctx context.Context, root toolRoot, emcc string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	version, err := emccVersionWord(ctx, root, emcc)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(base, "spawnbench", "emscripten-"+version)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("create the Emscripten cache: %w", err)
	}
	// em-config answers from emcc's own configuration when EM_CACHE is not
	// set, so ask it with spawnbench's variables removed.
	// A root's em-config is on the root's PATH, beside its emcc.
	argv := root.command([]string{"em-config", "CACHE"}, "")
	if root.system() {
		argv = []string{emConfig(emcc), "CACHE"}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = withoutEnv(os.Environ(), "EM_CACHE", "EM_FROZEN_CACHE")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ask em-config for the installation's cache: %w", err)
	}
	shipped := strings.TrimSpace(string(out))
	if shipped == "" || filepath.Clean(shipped) == filepath.Clean(cache) {
		return cache, nil
	}
	if !root.system() {
		// The root's cache, read here at its path in the root; the links
		// name the path inside, where emcc reads them. sid's emscripten
		// ships none: emcc builds its libraries once into spawnbench's.
		inRoot := filepath.Join(root.dir, shipped)
		if _, err := os.Stat(inRoot); errors.Is(err, fs.ErrNotExist) {
			return cache, nil
		}
		if err := linkTreeAs(inRoot, shipped, cache); err != nil {
			return "", fmt.Errorf("seed the Emscripten cache %s from the root's %s: %w", cache, shipped, err)
		}
		return cache, nil
	}
	if err := linkTree(shipped, cache); err != nil {
		return "", fmt.Errorf("seed the Emscripten cache %s from %s: %w", cache, shipped, err)
	}
	return cache, nil
}

// emccVersionWord is emcc's version number ("3.1.6"), for the cache name:
// another emcc must not use this one's libraries.
func emccVersionWord(ctx context.Context, root toolRoot, emcc string) (string, error) {
	out, err := emccAsk(ctx, root, emcc, "-dumpversion")
	if err != nil {
		return "", fmt.Errorf("%s -dumpversion: %w", emcc, err)
	}
	v := firstLine(out)
	if v == "" || strings.ContainsAny(v, "/ \n") {
		return "", fmt.Errorf("%s -dumpversion printed %q", emcc, v)
	}
	return v, nil
}

// emccAsk asks emcc a question (its version), once per process. A root's
// emcc, whose installation has no cache of its own, insists on a writable
// one even to answer: it gets a fresh temporary one (emccAskRoot), and
// the log line of the sanity check a fresh cache brings ("shared:INFO:
// ...") is left out.
func emccAsk(ctx context.Context, root toolRoot, emcc string, args ...string) (string, error) {
	if root.system() {
		return proc.ToolFact(ctx, append([]string{emcc}, args...)...)
	}
	// Each ask starts Python in the root's sandbox, and envs, plan and a
	// run's checks ask the same questions of every kind.
	question := strings.Join(append([]string{"emcc in the root at " + root.dir, emcc}, args...), "\x00")
	return proc.Fact(question, func() (string, error) { return emccAskRoot(ctx, root, emcc, args...) })
}

// emccAskRoot asks a root's emcc, with a cache of its own that nothing
// keeps.
func emccAskRoot(ctx context.Context, root toolRoot, emcc string, args ...string) (string, error) {
	probe, err := os.MkdirTemp("", "spawnbench-emcc-")
	if err != nil {
		return "", fmt.Errorf("a cache for emcc's answer: %w", err)
	}
	defer os.RemoveAll(probe)
	out, err := proc.Output(ctx, "", root.command(append([]string{"env", "EM_CACHE=" + probe, emcc}, args...), "", probe)...)
	var kept []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "shared:") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n"), err
}

// emConfig finds em-config beside emcc (an emsdk's emcc is not on PATH
// with its em-config necessarily), else on PATH.
func emConfig(emcc string) string {
	if path, err := exec.LookPath(emcc); err == nil {
		beside := filepath.Join(filepath.Dir(path), "em-config")
		if _, err := os.Stat(beside); err == nil {
			return beside
		}
	}
	return "em-config"
}

// linkTree mirrors from's directories under to and links each file of
// from there, leaving alone anything to already has. emcc's lock and
// sanity stamp are its own per cache, so they are not linked.
func linkTree(from, to string) error { return linkTreeAs(from, from, to) }

// linkTreeAs is linkTree for a tree read at from whose links must name
// it as as (its path inside a toolchain root).
func linkTreeAs(from, as, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if rel == "cache.lock" || rel == "sanity.txt" {
			return nil
		}
		if err := os.Symlink(filepath.Join(as, rel), dst); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return nil
	})
}
