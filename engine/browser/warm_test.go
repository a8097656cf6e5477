package browser

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/proc"
)

// These tests keep one real browser open for several pages, as a run's
// warm environments do.

// browsers are the browsers the tests run, each skipped where missing.
var browsers = []struct {
	name    string
	need    func(*testing.T)
	browser Browser
}{
	{"chromium", needChromium, Chromium{}},
	{"firefox", needFirefox, Firefox{}},
}

// stops counts the browsers stopped during the test, with the process
// group of each, and checks at the end that none of them left a process.
func stops(t *testing.T) *[]int {
	t.Helper()
	var groups []int
	profiles := map[int]string{}
	testHookBeforeStop = func(pgid int, profile string) {
		groups = append(groups, pgid)
		profiles[pgid] = profile
	}
	t.Cleanup(func() {
		testHookBeforeStop = nil
		for pgid, profile := range profiles {
			if left := living(pgid, profile); len(left) > 0 {
				t.Errorf("%d processes of browser %d left running: %v", len(left), pgid, left)
			}
			if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the profile directory %s is left behind", profile)
			}
		}
	})
	return &groups
}

// TestWarmPagesHaveRenderersOfTheirOwn: three pages in one warm browser
// each run on an origin of their own, each in a renderer process of its
// own that ends with the page, and the browser is started once and
// stopped once, at Close. Every file the warm browser writes, Chromium's
// org.chromium.Chromium.* directories among them, is inside the profile
// spawnbench removes: while it runs its profile is all it has in
// $TMPDIR, and after Close nothing is left there (coldRunChecks checks
// the same of a cold browser).
func TestWarmPagesHaveRenderersOfTheirOwn(t *testing.T) {
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out(location.host + " " + crossOriginIsolated);
const w = new Worker("w.js");
w.onmessage = () => spawnbench.exit(0);
</script>`, "w.js": `postMessage(0);`})
	for _, c := range browsers {
		t.Run(c.name, func(t *testing.T) {
			c.need(t)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			stopped := stops(t)
			w := NewWarm(c.browser)
			origins := map[string]bool{}
			renderers := map[int]int{}
			for i := range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				out, err := w.Run(ctx, Page{Dir: dir, Path: "index.html"})
				cancel()
				if err != nil {
					t.Fatalf("page %d: %v", i, err)
				}
				if out.ExitCode != 0 || out.TimedOut {
					t.Fatalf("page %d: exit %d, timed out %v, stderr:\n%s", i, out.ExitCode, out.TimedOut, out.Stderr)
				}
				host, isolated, _ := strings.Cut(strings.TrimSpace(string(out.Stdout)), " ")
				if isolated != "true" || !strings.HasPrefix(host, "127.0.0.") || origins[host] {
					t.Errorf("page %d ran at %q, isolated %q: want a cross-origin-isolated loopback origin no page had before (%v)", i, host, isolated, origins)
				}
				origins[host] = true
				pid := out.RendererPID
				if pid <= 0 {
					t.Fatalf("page %d: no renderer process recorded", i)
				}
				if j, seen := renderers[pid]; seen {
					t.Errorf("pages %d and %d both ran in renderer process %d", j, i, pid)
				}
				renderers[pid] = i
				if out.Wall <= 0 || out.UserNS == nil || out.SysNS == nil || *out.UserNS+*out.SysNS <= 0 {
					t.Errorf("page %d: wall %v, user %v, sys %v: want the page's share of the browser's CPU time", i, out.Wall, out.UserNS, out.SysNS)
				}
				if out.MaxRSSBytes == nil || *out.MaxRSSBytes <= 0 {
					t.Errorf("page %d: the renderer's peak memory is missing", i)
				}
				if len(*stopped) != 0 {
					t.Fatalf("after page %d the browser was stopped %d times (%v); want it kept for the next page", i, len(*stopped), w.notKept)
				}
				// Nothing of the browser runs between its pages.
				if !w.inst.tree().Frozen() {
					t.Errorf("after page %d the browser's tree is not frozen", i)
				}
				// The renderer ends with the page's context.
				if !ends(pid, 60*time.Second) {
					t.Errorf("page %d's renderer %d still runs a minute after its page", i, pid)
				}
			}
			// While it ran, the browser's profile was all it had there.
			if seen := entryNames(t, tmp); len(seen) != 1 || !strings.HasPrefix(seen[0], "spawnbench-"+c.name+"-") {
				t.Errorf("$TMPDIR held %v while the browser ran; want its profile only", seen)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if len(*stopped) != 1 {
				t.Fatalf("the browser was stopped %d times, want once, at Close", len(*stopped))
			}
			for _, name := range entryNames(t, tmp) {
				t.Errorf("the warm %s left %s in $TMPDIR", c.name, name)
			}
		})
	}
}

// entryNames are the names of what dir holds.
func entryNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// ends waits until process pid has ended, for at most limit.
func ends(pid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return true
		}
		if p, ok := parseStat(stat); !ok || p.state == 'Z' || p.state == 'X' {
			return true
		}
	}
	return false
}

// TestWarmBrowserIsReplaced: a warm browser killed between pages (a
// crash, the OOM killer) is noticed, and the next page runs in a new one;
// a page that hangs past its timeout is a TimedOut Outcome, its browser is
// stopped, and the next page runs in a new one; a browser killed during a
// page makes that page a failed Outcome that says so. One warm browser
// goes through all three, as one of a long run might.
func TestWarmBrowserIsReplaced(t *testing.T) {
	dir := sitePages(t, map[string]string{
		"ok.html":   `<!doctype html><script>spawnbench.exit(0);</script>`,
		"wait.html": `<!doctype html><script>spawnbench.out("started");</script>`,
		"spin.html": `<!doctype html><script>spawnbench.out("started"); new Worker("spin.js");</script>`,
		"spin.js":   `for (;;) {}`,
	})
	for _, c := range browsers {
		t.Run(c.name, func(t *testing.T) {
			c.need(t)
			stopped := stops(t)
			w := NewWarm(c.browser)
			defer w.Close()
			run := func(what string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				out, err := w.Run(ctx, Page{Dir: dir, Path: "ok.html"})
				if err != nil || out.ExitCode != 0 || out.TimedOut {
					t.Fatalf("ok.html %s: err %v, exit %d, timed out %v, stderr %s", what, err, out.ExitCode, out.TimedOut, out.Stderr)
				}
			}
			run("first")
			first := w.inst.pid()
			if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-w.inst.gone()
			run("after the browser died")
			second := w.inst.pid()
			if second == first || len(*stopped) != 1 || (*stopped)[0] != first {
				t.Fatalf("after the browser %d died: the page ran in %d, browsers stopped %v; want a new browser and the dead one cleaned up", first, second, *stopped)
			}

			hang, stdout := deadlineAfterStart(t, time.Second, 90*time.Second)
			out, err := w.Run(hang, Page{Dir: dir, Path: "spin.html", Stdout: stdout})
			if err != nil || !out.TimedOut {
				t.Fatalf("spin.html: exit %d, timed out %v, err %v; want a timeout", out.ExitCode, out.TimedOut, err)
			}
			if len(*stopped) != 2 || (*stopped)[1] != second {
				t.Fatalf("after the hang in browser %d the browsers stopped were %v; want it stopped", second, *stopped)
			}
			run("after the hang")
			if w.inst == nil {
				// The hung browser was stopped (above), so the page ran in
				// a new one; on a slow machine that one may not be kept
				// (its tab did not close or freeze in time), and the page
				// killed below needs a warm browser.
				t.Logf("the browser of the page after the hang was not kept: %v", w.notKept)
				run("to have a warm browser")
			}
			if w.inst == nil {
				t.Fatalf("two clean pages in a row left no warm browser: %v", w.notKept)
			}
			third := w.inst.pid()
			if third == second {
				t.Fatalf("the page after the hang ran in the hung browser %d", second)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			out, err = w.Run(ctx, Page{Dir: dir, Path: "wait.html", Stdout: killOnLine(third)})
			if err != nil || out.ExitCode == 0 || out.TimedOut || !strings.Contains(string(out.Stderr), "exited before the page did") {
				t.Errorf("a page whose browser died: err %v, exit %d, timed out %v, stderr:\n%s", err, out.ExitCode, out.TimedOut, out.Stderr)
			}
		})
	}
}

// killOnLine is a page's stdout that kills process pid at the first line.
func killOnLine(pid int) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		return len(p), nil
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A page run under a follow hook (a traced page) gives the hook its
// renderer, the process Outcome.RendererPID names, once, before any
// script of the page's own runs; a page without a hook posts nothing
// for it.
func TestFollowHookGetsTheRendererBeforeThePageRuns(t *testing.T) {
	needChromium(t)
	stops(t)
	dir := sitePages(t, map[string]string{"index.html": `<!doctype html><script>
spawnbench.out("ran");
spawnbench.exit(0);
</script>`})
	w := NewWarm(Chromium{})
	defer w.Close()
	for _, traced := range []bool{true, false} {
		var followed []int
		var ranFirst bool
		var stdout strings.Builder
		ctx := context.Background()
		if traced {
			ctx = proc.WithFollowHook(ctx, func(pid int) {
				followed = append(followed, pid)
				ranFirst = stdout.Len() > 0
			})
		}
		out, err := w.Run(ctx, Page{Dir: dir, Path: "index.html", Stdout: &stdout})
		if err != nil || out.ExitCode != 0 || stdout.String() != "ran\n" {
			t.Fatalf("traced %v: %v, exit %d, stdout %q: %s", traced, err, out.ExitCode, stdout.String(), out.Stderr)
		}
		switch {
		case !traced && len(followed) != 0:
			t.Errorf("a page without a follow hook followed %v", followed)
		case traced && (len(followed) != 1 || followed[0] != out.RendererPID || ranFirst):
			t.Errorf("followed %v (after the page's own script: %v), want once its renderer %d, before its script", followed, ranFirst, out.RendererPID)
		}
	}
}
