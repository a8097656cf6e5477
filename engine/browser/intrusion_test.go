package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"spawnbench/engine/proc"
	"spawnbench/internal/intruder"
)

// These tests play another local user against the page servers and the
// browsers' control channels.

// TestPageServerAnswersOnlyItsPage: a request without the page's secret,
// the page's report endpoint's included, is refused (403) and recorded
// with the page, whatever it asks; the page's own requests, under the
// secret, are served; and a flood of refusals is counted, not kept line
// by line.
func TestPageServerAnswersOnlyItsPage(t *testing.T) {
	t.Parallel()
	dir := sitePages(t, map[string]string{"page.js": "1;", "index.html": "<!doctype html><p>"})
	rec := newRecorder(nil)
	srv, err := serve(dir, "127.0.0.1", nil, &reporter{argv: []byte(`["a"]`), take: rec.take, refuse: rec.refuse})
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(srv.url, "/")
	origin := base[:strings.LastIndexByte(base, '/')]
	secret := base[len(origin)+1:]
	if len(secret) < 26 {
		t.Errorf("secret %q: under 128 bits", secret)
	}
	send := func(method, url, body string) int {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	forged := []struct{ method, url, body string }{
		{"POST", origin + "/__spawnbench/report", "x77"},
		{"POST", origin + "/__spawnbench/report", "o1 2 3"},
		{"POST", origin + "/" + strings.Repeat("A", len(secret)) + "/__spawnbench/report", "x77"},
		{"POST", origin + "/" + secret + "X/__spawnbench/report", "x77"},
		{"GET", origin + "/page.js", ""},
		{"GET", origin + "/__spawnbench/reporter.js", ""},
		{"GET", origin + "/" + secret, ""},
	}
	for _, f := range forged {
		if code := send(f.method, f.url, f.body); code != http.StatusForbidden {
			t.Errorf("%s %s: %d, want 403", f.method, f.url, code)
		}
	}
	if code := send("GET", srv.url+"page.js", ""); code != http.StatusOK {
		t.Errorf("the page's own GET page.js: %d, want 200", code)
	}
	if code := send("GET", srv.url+"index.html", ""); code != http.StatusOK {
		t.Errorf("the page's own GET index.html: %d, want 200", code)
	}
	if code := send("GET", origin+"/favicon.ico", ""); code != http.StatusNotFound {
		t.Errorf("the browser's own GET /favicon.ico: %d, want 404 (not refused, not counted)", code)
	}
	if code := send("POST", srv.url+"__spawnbench/report", "oown"); code != http.StatusNoContent {
		t.Errorf("the page's own report: %d, want 204", code)
	}
	for range 20 {
		send("POST", origin+"/__spawnbench/report", "x77")
	}
	if err := srv.close(); err != nil {
		t.Fatal(err)
	}
	out := rec.outcome()
	if got, want := string(out.Stdout), "own\n"; got != want || rec.ended() {
		t.Errorf("stdout %q (page ended: %v), want only the page's own %q", got, rec.ended(), want)
	}
	if out.RefusedRequests == nil || *out.RefusedRequests != int64(len(forged)+20) {
		t.Errorf("refused %v, want %d", out.RefusedRequests, len(forged)+20)
	}
	lines := strings.Split(strings.TrimSpace(string(out.Stderr)), "\n")
	if len(lines) != refusedShown+1 || !strings.Contains(lines[0], `refused a request without the page's secret (not the page's): POST "/__spawnbench/report" from 127.0.0.1:`) ||
		!strings.Contains(lines[refusedShown], "counted, not shown") {
		t.Errorf("stderr, want %d refusals shown and one line for the rest:\n%s", refusedShown, out.Stderr)
	}
}

// nobody starts the intruder as nobody in mode, in a directory of its
// own; it skips the test where that cannot be done.
func nobody(t *testing.T, mode, arg string) *intruderProc {
	t.Helper()
	if why := intruder.Skip(); why != "" {
		t.Skip(why)
	}
	dir, err := intruder.Dir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd, err := intruder.Command(dir, mode, arg)
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &intruderProc{stop: in, said: make(chan intruder.Session, 1)}
	go func() {
		var s intruder.Session
		if line, err := bufio.NewReader(out).ReadBytes('\n'); err != nil || json.Unmarshal(line, &s) != nil {
			s.Error = "the intruder said nothing"
		}
		p.said <- s
	}()
	p.wait = sync.OnceValue(func() error {
		in.Close()
		return cmd.Wait()
	})
	t.Cleanup(func() { _ = p.wait() })
	return p
}

type intruderProc struct {
	stop interface{ Close() error }
	said chan intruder.Session
	wait func() error
}

// session is what the intruder said of its session, within a minute.
func (p *intruderProc) session(t *testing.T) intruder.Session {
	t.Helper()
	select {
	case s := <-p.said:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the intruder said nothing in a minute")
	}
	return intruder.Session{}
}

// warmPages runs pages in a warm browser and returns their errors. Each
// page must exit 0 with no request of its server refused, and its secret
// must be on no command line while it runs.
func warmPages(t *testing.T, w *Warm, pages int) (errs []error) {
	t.Helper()
	for range pages {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		seer := &secretSeer{t: t}
		out, err := w.Run(ctx, Page{Dir: secretPage(t), Path: "index.html", Stdout: seer})
		cancel()
		if err == nil {
			seer.check(t, out)
		}
		errs = append(errs, err)
	}
	return errs
}

// TestWarmFirefoxIsBeyondOtherUsers: where spawnbench can make a network
// namespace of its own, the warm Firefox runs in it, and another local
// user (nobody) can reach neither its remote agent nor its pages.
func TestWarmFirefoxIsBeyondOtherUsers(t *testing.T) {
	needFirefox(t)
	if why := intruder.Skip(); why != "" {
		t.Skip(why)
	}
	if kind, detail := Isolation(); kind != IsolationNetNS {
		t.Skipf("no network namespace here: %s", detail)
	}
	w := NewWarm(Firefox{})
	defer w.Close()
	var agent string
	var tries []intruder.Session
	testHookBeforeSession = func(url string) {
		agent = url
		// Before spawnbench's own session: the window a faster local
		// client would use.
		tries = append(tries, nobody(t, "session", url+" hold").session(t))
	}
	defer func() { testHookBeforeSession = nil }()
	for i, err := range warmPages(t, w, 2) {
		if err != nil {
			t.Errorf("page %d: %v", i, err)
		}
	}
	if agent == "" || len(tries) != 1 {
		t.Fatalf("the remote agent at %q was tried %d times, want once", agent, len(tries))
	}
	// Nobody dials the agent's port on the machine's loopback, where
	// nothing of this browser listens (it is in its own namespace, checked
	// below): refused where the port is free, reset where another program
	// (another test's page server or browser) happens to hold it. Either
	// way no connection reached the agent; reaching it gives a session or
	// the agent's own refusal, neither of these.
	if e := tries[0].Error; tries[0].Got || !strings.Contains(e, "connection refused") && !strings.Contains(e, "connection reset by peer") {
		t.Errorf("nobody's session.new at %s: %+v, want the connection refused (or reset by another program on the port)", agent, tries[0])
	}
	ours, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := ownNet()
	theirs, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(n.ns[len(n.ns)-1].Fd())))
	if err != nil || theirs == ours {
		t.Errorf("the browser's network namespace %s (%v) is spawnbench's own %s", theirs, err, ours)
	}
}

// TestFirefoxSomeoneElseReachedFirstIsNotUsed: on the machine's loopback
// (no namespace), a local client that reaches the warm Firefox's remote
// agent before spawnbench does, and takes its one session or takes one
// and ends it, makes the browser's start fail, saying why: the page is
// never run in a browser someone else may have driven. With no such
// client, pages run as ever.
func TestFirefoxSomeoneElseReachedFirstIsNotUsed(t *testing.T) {
	needFirefox(t)
	if why := intruder.Skip(); why != "" {
		t.Skip(why)
	}
	forceLoopback = true
	defer func() { forceLoopback = false }()
	if kind, _ := Isolation(); kind != IsolationSessionCheck {
		t.Fatalf("isolation %s with the namespace disabled", kind)
	}
	t.Run("nobody else", func(t *testing.T) {
		w := NewWarm(Firefox{})
		defer w.Close()
		if err := warmPages(t, w, 1)[0]; err != nil {
			t.Errorf("page: %v", err)
		}
	})
	for _, tc := range []struct{ then, want string }{
		{"hold", "another local client took the remote agent's one session before spawnbench"},
		{"end", "besides spawnbench's own (127.0.0.1:"},
	} {
		t.Run("a session taken and "+tc.then, func(t *testing.T) {
			w := NewWarm(Firefox{})
			defer w.Close()
			var took intruder.Session
			testHookBeforeSession = func(url string) {
				p := nobody(t, "session", url+" "+tc.then)
				took = p.session(t)
				if tc.then == "end" {
					_ = p.wait() // its session ended
				}
			}
			defer func() { testHookBeforeSession = nil }()
			errs := warmPages(t, w, 1)
			if !took.Got {
				t.Fatalf("the intruder got no session before spawnbench: %+v", took)
			}
			t.Logf("page: %v", errs[0])
			if errs[0] == nil || !strings.Contains(errs[0].Error(), tc.want) || !strings.Contains(errs[0].Error(), "start firefox") {
				t.Errorf("page: %v, want a failed start saying %q", errs[0], tc.want)
			}
		})
	}
}

// secretSeer is a page's standard output that, when the page prints the
// path it was opened at (its secret's first part), looks for the secret
// where any local user can read it: every process's command line.
type secretSeer struct {
	t     *testing.T
	mu    sync.Mutex
	seen  []string
	found bool
}

func (s *secretSeer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	secret, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(p)), "/"), "/")
	if len(secret) < 26 {
		s.t.Errorf("the page's path %q holds no secret", p)
		return len(p), nil
	}
	s.found = true
	procs, _ := os.ReadDir("/proc")
	for _, e := range procs {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), secret) {
			s.seen = append(s.seen, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return len(p), nil
}

// secretPage is a page that prints the path it was opened at.
func secretPage(t *testing.T) string {
	return sitePages(t, map[string]string{"index.html": `<!doctype html><script>spawnbench.out(location.pathname); spawnbench.exit(0);</script>`})
}

// check says what is wrong with a secretPage's run: not exit 0, a request
// of its server refused, its path not printed, its secret on a command
// line.
func (s *secretSeer) check(t *testing.T, out proc.Outcome) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if out.ExitCode != 0 || out.RefusedRequests == nil || *out.RefusedRequests != 0 || !s.found {
		t.Errorf("page: exit %d, refused %v, its path printed %v; want exit 0, its path, nothing refused: %s", out.ExitCode, out.RefusedRequests, s.found, out.Stderr)
	}
	for _, line := range s.seen {
		t.Errorf("the page's secret is on a command line: %s", line)
	}
}

// TestPageSecretIsOnNoCommandLine: while a page runs, in Chromium warm or
// cold or in a cold Firefox (warmPages checks the warm Firefox), its
// secret is on no process's command line, which any local user can read.
func TestPageSecretIsOnNoCommandLine(t *testing.T) {
	t.Parallel()
	needChromium(t)
	needFirefox(t)
	for _, tc := range []struct {
		b    Browser
		cold bool
	}{{Chromium{}, false}, {Chromium{}, true}, {Firefox{}, true}} {
		t.Run(tc.b.Name()+map[bool]string{false: " warm", true: " cold"}[tc.cold], func(t *testing.T) {
			seer := &secretSeer{t: t}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			p := Page{Browser: tc.b, Dir: secretPage(t), Path: "index.html", Stdout: seer}
			var out proc.Outcome
			var err error
			if tc.cold {
				out, err = Run(ctx, p)
			} else {
				w := NewWarm(tc.b)
				out, err = w.Run(ctx, p)
				err = errors.Join(err, w.Close())
			}
			if err != nil {
				t.Fatal(err)
			}
			seer.check(t, out)
		})
	}
}
