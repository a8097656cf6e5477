package env

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"spawnbench/engine/atomicfile"
)

// The JavaScript wasi-threads host: npm's @emnapi/wasi-threads (the host
// that emnapi and @napi-rs/wasm-runtime ship) with @tybys/wasm-util's WASI
// preview1, the adapter that runs the wasi-threads payload's .wasm under
// Node.js (jshost/node.mjs) and the browsers (jshost/page.html). The host's
// own code is jshost/*.mjs, copied by the payload's build; the npm packages
// are pinned by jshost/package-lock.json and installed by .ci/setup (`npm
// ci`), and staging copies their files and the host's options next to the
// .wasm, so a page is served everything from one directory and nothing is
// fetched from anywhere else.
//
// Per spawn the host does what it does by default: the thread that owns
// the ThreadManager (Node.js's main thread, the page) starts a new worker,
// sends it the module and the memory, and terminates it when its thread
// returns. reuse_worker and pool_size turn on the host's own pool.

// jsHostSettings are the host's options (#JSHost in the schema).
type jsHostSettings struct {
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

// copyJSHostSources copies the host's own files (spawnbench's sources)
// into the build.
func copyJSHostSources(srcDir, outDir string) error {
	host, _ := filepath.Glob(filepath.Join(srcDir, "jshost", "*.mjs"))
	pages, _ := filepath.Glob(filepath.Join(srcDir, "jshost", "*.html"))
	host = append(host, pages...)
	if len(host) == 0 {
		return fmt.Errorf("the JavaScript host's sources are not in %s", filepath.Join(srcDir, "jshost"))
	}
	for _, f := range host {
		if err := copyFile(f, filepath.Join(outDir, filepath.Base(f))); err != nil {
			return err
		}
	}
	return nil
}

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

// Toolchain names the installed packages and their versions, e.g.
// "@emnapi/wasi-threads 2.2.0, @tybys/wasm-util 0.10.5".
func (s jsHostSettings) Toolchain(context.Context) Toolchain {
	modules, err := jsHostModules()
	if err != nil {
		return Toolchain{Install: jsHostInstall, Problem: err.Error()}
	}
	var out []string
	for _, p := range jsHostPackages {
		b, err := os.ReadFile(filepath.Join(modules, p.pkg, "package.json"))
		if err != nil {
			return Toolchain{Install: jsHostInstall, Problem: fmt.Sprintf("read %s's package.json: %v", p.pkg, err)}
		}
		var meta struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return Toolchain{Install: jsHostInstall, Problem: fmt.Sprintf("%s's package.json: %v", p.pkg, err)}
		}
		out = append(out, p.pkg+" "+meta.Version)
	}
	return Toolchain{Present: true, Version: strings.Join(out, ", "), Install: jsHostInstall}
}

// adapter is the host under hosts of form f (Node.js, the browsers); the
// WebAssembly runtimes need none.
func (s jsHostSettings) adapter(f Form) Adapter {
	if f == FormScript || f == FormPage {
		return s
	}
	return nil
}

// hostConfig is jshost.json: the host's own options.
func (s jsHostSettings) hostConfig() ([]byte, error) {
	var reuse any = false
	if s.ReuseWorker {
		reuse = map[string]any{"size": s.PoolSize, "strict": false}
	}
	return json.Marshal(map[string]any{"reuseWorker": reuse})
}

// Stage makes buildDir/jshost-<key>: the build's files (hard links where
// the file system allows, copies elsewhere), the packages' files and
// jshost.json. The key hashes the packages' files and the options, so a
// staging is made once and never goes stale.
func (s jsHostSettings) Stage(ctx context.Context, buildDir string) (string, error) {
	modules, err := jsHostModules()
	if err != nil {
		return "", err
	}
	config, err := s.hostConfig()
	if err != nil {
		return "", fmt.Errorf("encode jshost.json: %w", err)
	}
	h := sha256.New()
	h.Write(config)
	files := map[string][]byte{"jshost.json": config}
	for _, p := range jsHostPackages {
		data, err := os.ReadFile(filepath.Join(modules, p.pkg, p.file))
		if err != nil {
			return "", fmt.Errorf("%s: %w", p.pkg, err)
		}
		files[p.as] = data
		fmt.Fprintf(h, "\x00%s\x00%d\x00", p.as, len(data))
		h.Write(data)
	}
	dir := filepath.Join(buildDir, "jshost-"+hex.EncodeToString(h.Sum(nil)[:8]))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	work, err := os.MkdirTemp(buildDir, ".stage-*")
	if err != nil {
		return "", fmt.Errorf("stage the JavaScript host: %w", err)
	}
	defer os.RemoveAll(work)
	entries, err := os.ReadDir(buildDir)
	if err != nil {
		return "", fmt.Errorf("stage the JavaScript host: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := linkOrCopy(filepath.Join(buildDir, e.Name()), filepath.Join(work, e.Name())); err != nil {
			return "", fmt.Errorf("stage the JavaScript host: %w", err)
		}
	}
	for name, data := range files {
		if err := atomicfile.WriteBytes(filepath.Join(work, name), data); err != nil {
			return "", fmt.Errorf("stage the JavaScript host: %w", err)
		}
	}
	if err := os.Chmod(work, 0o755); err != nil {
		return "", fmt.Errorf("stage the JavaScript host: %w", err)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil // another process staged it first
		}
		return "", fmt.Errorf("stage the JavaScript host: %w", err)
	}
	return dir, nil
}

// linkOrCopy hard-links from to to, or copies it where links fail.
func linkOrCopy(from, to string) error {
	if err := os.Link(from, to); err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	return copyFile(from, to)
}
