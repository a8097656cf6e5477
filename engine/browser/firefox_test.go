package browser

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"
)

// These tests start real headless Firefox ESR browsers (Debian's
// firefox-esr), each on a fresh profile, and check that none of their
// processes outlives Run.

func needFirefox(t *testing.T) {
	t.Helper()
	fulltest.Only(t, "starts Firefox")
	if _, err := exec.LookPath(DefaultFirefox); err != nil {
		t.Skip("firefox-esr is not installed (apt-get install -y firefox-esr)")
	}
}

func TestFirefoxPageReportsLikeAProcess(t *testing.T) {
	needFirefox(t)
	check := coldRunChecks(t)
	// A worker's message is printed too: lines reach spawnbench from the
	// page whatever thread they come from.
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out("isolated " + crossOriginIsolated);
spawnbench.out("argv " + JSON.stringify(spawnbench.argv));
spawnbench.err("to stderr");
const w = new Worker("w.js");
w.onmessage = (e) => {
  spawnbench.out("worker " + e.data);
  spawnbench.exit(3);
  spawnbench.out("after exit");
};
</script>`, "w.js": `postMessage(typeof SharedArrayBuffer);`})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Argv: []string{"sequential", "10"}, Browser: Firefox{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.Stdout), "isolated true\nargv [\"sequential\",\"10\"]\nworker function\n"; got != want {
		t.Errorf("stdout = %q, want %q (stderr %q)", got, want, out.Stderr)
	}
	if !strings.HasPrefix(string(out.Stderr), "to stderr\n") {
		t.Errorf("stderr = %q, want it to start with the page's line", out.Stderr)
	}
	if out.ExitCode != 3 || out.TimedOut || out.Signal != "" {
		t.Errorf("exit %d, timed out %v, signal %q; want exit 3 only", out.ExitCode, out.TimedOut, out.Signal)
	}
	check(out)
}

func TestFirefoxTimeoutIsAnOutcome(t *testing.T) {
	needFirefox(t)
	dir := sitePages(t, map[string]string{
		"index.html": `<!doctype html><script>spawnbench.out("started"); new Worker("spin.js");</script>`,
		"spin.js":    `console.log("spinning"); for (;;) {}`,
	})
	// Time for the worker to start and say so in Firefox's log.
	ctx, stdout := deadlineAfterStart(t, 3*time.Second, 60*time.Second)
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Browser: Firefox{}, Stdout: stdout})
	if err != nil {
		t.Fatalf("a timed-out page must be an Outcome, not an error: %v", err)
	}
	if !out.TimedOut {
		t.Errorf("TimedOut is false: exit %d, stderr %s", out.ExitCode, out.Stderr)
	}
	if stdout.String() != "started\n" {
		t.Errorf("stdout = %q, want the line printed before the timeout", stdout)
	}
	// The worker's console line is only in Firefox's own log.
	if !strings.Contains(string(out.Stderr), "--- firefox's log ---") || !strings.Contains(string(out.Stderr), "spinning") {
		t.Errorf("stderr lacks firefox's log with the worker's console line:\n%s", out.Stderr)
	}
}

// TestBrowserThatCannotStartIsAnOutcome: a browser command that exits at
// once (here a script standing in for a broken install) is a failed run
// with the browser's own words, not a hang until the timeout.
func TestBrowserThatCannotStartIsAnOutcome(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "broken-browser")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'XPCOMGlueLoad error: no libxul' >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>spawnbench.exit(0);</script>`})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := Run(ctx, Page{Dir: dir, Path: "index.html", Browser: Firefox{Command: bin}})
	if err != nil {
		t.Fatalf("a browser that exits at once must be an Outcome, not an error: %v", err)
	}
	if out.ExitCode != 255 || out.TimedOut {
		t.Errorf("exit %d, timed out %v; want the browser's exit status 255", out.ExitCode, out.TimedOut)
	}
	for _, want := range []string{"exited before the page did", "no libxul"} {
		if !strings.Contains(string(out.Stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, out.Stderr)
		}
	}
}

func TestReporterGoesBeforeThePageScripts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ page, want string }{
		{"<!doctype html>\n<script>x</script>", "<!doctype html>\n<script src=\"/S/__spawnbench/reporter.js\"></script>\n\n<script>x</script>"},
		{"<!DOCTYPE html><p>", "<!DOCTYPE html>\n<script src=\"/S/__spawnbench/reporter.js\"></script>\n<p>"},
		{"<script>x</script>", "<script src=\"/S/__spawnbench/reporter.js\"></script>\n<script>x</script>"},
	} {
		if got := string(withReporter([]byte(c.page), "/S/__spawnbench/reporter.js")); got != c.want {
			t.Errorf("withReporter(%q) = %q, want %q", c.page, got, c.want)
		}
	}
}

// TestPageStdoutStreams: with Page.Stdout set, the page's stdout lines
// are handed to it as they come, and the Outcome's Stdout stays nil (as
// with proc.Command.Stdout). The lines reach spawnbench through its page
// server whichever browser runs the page, so one browser shows it.
func TestPageStdoutStreams(t *testing.T) {
	needChromium(t)
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out("one");
spawnbench.out("two");
spawnbench.exit(0);
</script>`})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var stdout bytes.Buffer
	out, _, err := watched(t, ctx, Page{Dir: dir, Path: "index.html", Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "one\ntwo\n" || out.Stdout != nil {
		t.Errorf("streamed %q, Outcome.Stdout %q; want the lines streamed and no Outcome.Stdout", stdout.String(), out.Stdout)
	}
	if out.ExitCode != 0 || out.TimedOut {
		t.Errorf("exit %d, timed out %v (stderr %q)", out.ExitCode, out.TimedOut, out.Stderr)
	}
}
