package browser

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/proc"
)

// These tests start real headless Chromium browsers.

func needChromium(t *testing.T) {
	t.Helper()
	fulltest.Only(t, "starts Chromium")
	if _, err := exec.LookPath(DefaultChromium); err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
}

// sitePages writes pages into a fresh directory to serve.
func sitePages(t *testing.T, pages map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// watched runs p and checks afterwards that none of its browser's
// processes is left, in its process group or naming its profile (the crash
// handlers). It returns what Run returned and the processes the browser
// had just before it was stopped.
func watched(t *testing.T, ctx context.Context, p Page) (out proc.Outcome, procs []int, err error) {
	t.Helper()
	var pgid int
	var profile string
	testHookBeforeStop = func(g int, prof string) {
		pgid, profile = g, prof
		procs = living(g, prof)
	}
	defer func() { testHookBeforeStop = nil }()
	out, err = Run(ctx, p)
	if pgid == 0 {
		t.Fatalf("the browser never started: %v", err)
	}
	if left := living(pgid, profile); len(left) > 0 {
		t.Errorf("%d browser processes left running after Run: %v", len(left), left)
	}
	// (When ctx has ended, proc.Start is killing the group already.)
	if ctx.Err() == nil && len(procs) < 2 {
		t.Errorf("only %d browser processes were seen running (%v): the count is not looking at Chromium", len(procs), procs)
	}
	if _, statErr := os.Stat(profile); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("the profile directory %s is left behind", profile)
	}
	return out, procs, err
}

// coldRunChecks are what every cold page run must leave true, checked
// by the tests of what a page reports (one browser start each, for
// both): the Outcome carries the CPU time and memory of the browser's
// process tree, and every file the browser wrote, Chromium's
// org.chromium.Chromium.* directories among them, was inside the
// profile spawnbench removes, so $TMPDIR (the test's own) is left empty.
// (TestWarmPagesHaveRenderersOfTheirOwn checks the same of a warm
// browser.) It sets $TMPDIR, so its test cannot be parallel.
func coldRunChecks(t *testing.T) func(out proc.Outcome) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return func(out proc.Outcome) {
		t.Helper()
		if out.UserNS == nil || out.SysNS == nil || *out.UserNS+*out.SysNS <= 0 || out.MaxRSSBytes == nil || *out.MaxRSSBytes <= 0 {
			t.Errorf("the browser tree's cost is missing: user %v sys %v max RSS %v", out.UserNS, out.SysNS, out.MaxRSSBytes)
		}
		for _, name := range entryNames(t, tmp) {
			t.Errorf("the browser left %s in $TMPDIR", name)
		}
	}
}

func TestPageReportsLikeAProcess(t *testing.T) {
	needChromium(t)
	check := coldRunChecks(t)
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out("isolated " + crossOriginIsolated);
spawnbench.out("argv " + JSON.stringify(spawnbench.argv));
spawnbench.err("to stderr");
spawnbench.exit(3);
spawnbench.out("after exit");
</script>`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Argv: []string{"sequential", "10"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.Stdout), "isolated true\nargv [\"sequential\",\"10\"]\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if !strings.HasPrefix(string(out.Stderr), "to stderr\n") {
		t.Errorf("stderr = %q, want it to start with the page's line", out.Stderr)
	}
	if out.ExitCode != 3 || out.TimedOut || out.Signal != "" {
		t.Errorf("exit %d, timed out %v, signal %q; want exit 3 only", out.ExitCode, out.TimedOut, out.Signal)
	}
	if out.Wall <= 0 {
		t.Errorf("wall time %v", out.Wall)
	}
	check(out)
}

func TestBrowserIsPinned(t *testing.T) {
	needChromium(t)
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
new Worker("w.js").onmessage = () => spawnbench.exit(0);
</script>`, "w.js": `postMessage(0);`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, procs, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", CPUs: []int{0}})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("err %v, exit %d, stderr %s", err, out.ExitCode, out.Stderr)
	}
	for _, pid := range procs {
		status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		if err != nil {
			continue // gone meanwhile
		}
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "Cpus_allowed_list:") && strings.TrimSpace(strings.TrimPrefix(line, "Cpus_allowed_list:")) != "0" {
				t.Errorf("browser process %d: %s, want CPU 0 only", pid, line)
			}
		}
	}
}

func TestTimeoutIsAnOutcome(t *testing.T) {
	needChromium(t)
	// A worker that spins for ever keeps a renderer thread busy, as a
	// deadlocked benchmark would.
	dir := sitePages(t, map[string]string{
		"index.html": `<!doctype html><script>spawnbench.out("started"); new Worker("spin.js");</script>`,
		"spin.js":    `for (;;) {}`,
	})
	ctx, stdout := deadlineAfterStart(t, time.Second, 60*time.Second)
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Stdout: stdout})
	if err != nil {
		t.Fatalf("a timed-out page must be an Outcome, not an error: %v", err)
	}
	if !out.TimedOut {
		t.Errorf("TimedOut is false: exit %d, stderr %s", out.ExitCode, out.Stderr)
	}
	if stdout.String() != "started\n" {
		t.Errorf("stdout = %q, want the line printed before the timeout", stdout)
	}
}

func TestCancelStopsTheBrowser(t *testing.T) {
	needChromium(t)
	dir := sitePages(t, map[string]string{
		"index.html": `<!doctype html><script>spawnbench.out("started");</script>`,
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	_, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestOutOfMemoryIsAnOutcome(t *testing.T) {
	needChromium(t)
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out("started");
const hoard = [];
for (;;) hoard.push(new Array(10000).fill(hoard.length));
</script>`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A small V8 heap makes the renderer run out of memory in a second.
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Browser: Chromium{Flags: []string{"--js-flags=--max-old-space-size=64"}}})
	if err != nil {
		t.Fatalf("a crashed page must be an Outcome, not an error: %v", err)
	}
	if out.ExitCode == 0 || out.TimedOut {
		t.Errorf("exit %d, timed out %v; want a nonzero exit", out.ExitCode, out.TimedOut)
	}
	if !strings.Contains(string(out.Stderr), "out of memory") {
		t.Errorf("stderr does not say out of memory:\n%s", out.Stderr)
	}
	if string(out.Stdout) != "started\n" {
		t.Errorf("stdout = %q, want the line printed before the crash", out.Stdout)
	}
}

func TestServerServesOnlyItsDirectory(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := sitePages(t, map[string]string{"page.js": "1;", "mod.wasm": "\x00asm"})
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	srv, err := serve(dir, "127.0.0.1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	if !strings.HasPrefix(srv.url, "http://127.0.0.1:") {
		t.Errorf("server at %s, want loopback", srv.url)
	}
	get := func(method, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, srv.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := get("GET", "page.js")
	if res.StatusCode != 200 {
		t.Fatalf("GET page.js: %s", res.Status)
	}
	for header, want := range map[string]string{
		"Cross-Origin-Opener-Policy":   "same-origin",
		"Cross-Origin-Embedder-Policy": "require-corp",
	} {
		if got := res.Header.Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	if ct := get("GET", "mod.wasm").Header.Get("Content-Type"); ct != "application/wasm" {
		t.Errorf("a .wasm is served as %q; WebAssembly.instantiateStreaming needs application/wasm", ct)
	}
	for _, path := range []string{"link.txt", "../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", "%2e%2e/secret.txt"} {
		if res := get("GET", path); res.StatusCode == 200 {
			t.Errorf("GET %s served a file outside the directory", path)
		}
	}
	if res := get("POST", "page.js"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s, want 405", res.Status)
	}
}
