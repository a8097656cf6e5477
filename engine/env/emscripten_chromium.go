package env

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// emscriptenChromium: the emscripten kind's build, run in headless
// Chromium. Each repetition gets a fresh browser (engine/browser): the
// Environment interface has no notion of a cell to keep a browser for, and
// a fresh browser is what a fresh `node` process is, a cold runtime, so
// the two kinds compare like for like; it costs about a second a
// repetition.
type emscriptenChromium struct {
	name string
	cfg  emscriptenChromiumSettings
}

type emscriptenChromiumSettings struct {
	emccSettings
	chromiumSettings
}

func init() {
	Register("emscripten-chromium", "C with pthreads built by Emscripten's emcc, run in headless Chromium",
		func(name string, cfg emscriptenChromiumSettings) Environment {
			return &emscriptenChromium{name: name, cfg: cfg}
		})
}

func (e *emscriptenChromium) Name() string { return e.name }
func (e *emscriptenChromium) Kind() string { return "emscripten-chromium" }

func (e *emscriptenChromium) Toolchain(ctx context.Context) Toolchain {
	tc := e.cfg.emccSettings.toolchain(ctx)
	if !tc.Present {
		return tc
	}
	chromium, problem := e.cfg.chromiumSettings.toolchain(ctx)
	if problem != "" {
		return Toolchain{Install: chromiumInstall, Problem: problem}
	}
	tc.Version += "; " + chromium
	tc.Install += " chromium"
	return tc
}

func (e *emscriptenChromium) BuildKey(ctx context.Context) string {
	// The page is part of the build, and it lives in this file, not in
	// the sources the runner hashes.
	return fmt.Sprintf("emscripten-chromium|%s|page %x", e.cfg.key(ctx), sha256.Sum256([]byte(emscriptenHarness)))
}

func (e *emscriptenChromium) Build(ctx context.Context, srcDir, outDir string) error {
	if err := e.cfg.build(ctx, srcDir, outDir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, emscriptenPage), []byte(emscriptenHarness), 0o644); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	return nil
}

func (e *emscriptenChromium) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.cfg.chromiumSettings.run(ctx, r, emscriptenPage)
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

// chromiumInstall is the install hint of the Chromium kinds.
const chromiumInstall = "apt-get install -y chromium"
