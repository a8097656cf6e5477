package env

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// The Firefox kinds: the builds of emscripten-chromium, manual and
// wasi-threads-chromium, each page opened in headless Firefox ESR
// (Debian's firefox-esr) instead, a fresh browser on a fresh profile per
// repetition (engine/browser.Firefox).

const firefoxInstall = "apt-get install -y firefox-esr"

// emscriptenFirefox: the emscripten kind's build and emscripten-chromium's
// page, in Firefox.
type emscriptenFirefox struct {
	name string
	cfg  emscriptenFirefoxSettings
}

type emscriptenFirefoxSettings struct {
	emccSettings
	firefoxSettings
}

// manualFirefox: manual/ (raw Web Workers, no C) in Firefox.
type manualFirefox struct {
	name string
	cfg  firefoxSettings
}

// wasiThreadsFirefox: the wasi-threads build on the JavaScript
// wasi-threads host (jshost/page.html) in Firefox.
type wasiThreadsFirefox struct {
	name  string
	cfg   wasiThreadsFirefoxSettings
	build *wasiThreads
}

type wasiThreadsFirefoxSettings struct {
	jsHostSettings
	firefoxSettings
}

func init() {
	Register("emscripten-firefox", "C with pthreads built by Emscripten's emcc, run in headless Firefox ESR",
		func(name string, cfg emscriptenFirefoxSettings) Environment {
			return &emscriptenFirefox{name: name, cfg: cfg}
		})
	Register("manual-firefox", "raw Web Workers, no C, in headless Firefox ESR",
		func(name string, cfg firefoxSettings) Environment { return &manualFirefox{name: name, cfg: cfg} })
	Register("wasi-threads-firefox", "the wasi-threads build, run by npm's @emnapi/wasi-threads in headless Firefox ESR (a Web Worker per spawn)",
		func(name string, cfg wasiThreadsFirefoxSettings) Environment {
			return &wasiThreadsFirefox{name: name, cfg: cfg, build: cfg.builder(name)}
		})
}

func (e *emscriptenFirefox) Name() string { return e.name }
func (e *emscriptenFirefox) Kind() string { return "emscripten-firefox" }

func (e *emscriptenFirefox) Toolchain(ctx context.Context) Toolchain {
	tc := e.cfg.emccSettings.toolchain(ctx)
	if !tc.Present {
		return tc
	}
	firefox, problem := e.cfg.firefoxSettings.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: firefoxInstall, Problem: problem}
	}
	tc.Version += "; " + firefox
	tc.Install += " firefox-esr"
	return tc
}

func (e *emscriptenFirefox) BuildKey(ctx context.Context) string {
	// The page is emscripten-chromium's; the build is the same.
	return fmt.Sprintf("emscripten-page|%s|page %x", e.cfg.key(ctx), sha256.Sum256([]byte(emscriptenHarness)))
}

func (e *emscriptenFirefox) Build(ctx context.Context, srcDir, outDir string) error {
	if err := e.cfg.build(ctx, srcDir, outDir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, emscriptenPage), []byte(emscriptenHarness), 0o644); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	return nil
}

func (e *emscriptenFirefox) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.firefoxSettings.run(ctx, r, emscriptenPage)
}

func (e *manualFirefox) Name() string { return e.name }
func (e *manualFirefox) Kind() string { return "manual-firefox" }

func (e *manualFirefox) Toolchain(ctx context.Context) Toolchain {
	version, problem := e.cfg.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: firefoxInstall, Problem: problem}
	}
	return Toolchain{Present: true, Version: version, Install: firefoxInstall}
}

// BuildKey is constant: the build is a copy of manual/, which the runner
// hashes with the other sources.
func (e *manualFirefox) BuildKey(ctx context.Context) string { return "manual" }

func (e *manualFirefox) Build(ctx context.Context, srcDir, outDir string) error {
	return copyManual(srcDir, outDir)
}

func (e *manualFirefox) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.run(ctx, r, "index.html")
}

func (e *wasiThreadsFirefox) Name() string { return e.name }
func (e *wasiThreadsFirefox) Kind() string { return "wasi-threads-firefox" }

func (e *wasiThreadsFirefox) Toolchain(ctx context.Context) Toolchain {
	tc, pkgs := jsHostToolchain(ctx, e.build)
	if !tc.Present {
		return tc
	}
	firefox, problem := e.cfg.firefoxSettings.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: firefoxInstall, Problem: problem}
	}
	tc.Version = firefox + "; " + pkgs
	return tc
}

func (e *wasiThreadsFirefox) BuildKey(ctx context.Context) string {
	return e.cfg.key(ctx, e.build)
}

func (e *wasiThreadsFirefox) Build(ctx context.Context, srcDir, outDir string) error {
	return e.cfg.build(ctx, e.build, srcDir, outDir)
}

func (e *wasiThreadsFirefox) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.firefoxSettings.run(ctx, r, "page.html")
}
