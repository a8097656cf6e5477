// Package browser runs one benchmark page in a fresh headless browser,
// Chromium or Firefox, and reports it the way engine/proc reports a
// process: its standard output lines, standard error, exit status and wall
// time.
//
// This package is opinionated: every page gets a browser of its own (a
// fresh process tree and a fresh profile), started pinned and in its own
// process group by engine/proc, and that whole group is killed when the
// page ends, fails, passes its timeout or is interrupted. The page is
// served from one directory only, on loopback, cross-origin isolated. The
// page talks to spawnbench through a small object,
// spawnbench.{argv,out,err,exit}, so a page needs no knowledge of the
// browser it runs in, and each line reaches spawnbench as it is printed,
// so a crash keeps every line printed before it. Chromium carries the
// lines over the DevTools protocol (reporter.js); Firefox, which has no
// DevTools bindings, posts them to the page server (reporter_http.js).
//
// A browser is a value of the Browser interface: Chromium and Firefox
// here. Another set of flags for either is a field; another browser is
// one more implementation of Browser.
package browser

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"spawnbench/engine/proc"
)

// Page is one run of one page.
type Page struct {
	// Dir is served as the site's root, and nothing else is.
	Dir string
	// Path is the page to open, relative to Dir, e.g. "emscripten.html".
	Path string
	// Argv is given to the page as spawnbench.argv.
	Argv []string
	// CPUs pins the browser and every process it starts; empty means no
	// pinning.
	CPUs []int
	// Browser runs the page; nil means Chromium{}, Debian's Chromium
	// with spawnbench's flags.
	Browser Browser
	// Stdout, when set, receives each line the page prints to standard
	// output as it comes, and the Outcome's Stdout is nil (as with
	// proc.Command.Stdout).
	Stdout io.Writer
}

// Browser is one browser that spawnbench can start, headless, on a fresh
// profile, and open a page in.
type Browser interface {
	// Name names the browser in messages, e.g. "chromium".
	Name() string
	// Executable is the browser command that is started.
	Executable() string
	// Version returns the browser's version line.
	Version(ctx context.Context) (string, error)
	// postsReports says whether the page reports by POST to the page
	// server (a browser without DevTools bindings).
	postsReports() bool
	// open starts the browser on profile for p, served at base.
	open(ctx context.Context, p Page, base, profile string, rec *recorder) (session, error)
}

// session is one started browser: the part of a run that differs between
// browsers. runSession is the rest.
type session interface {
	// wait returns when the page has ended (ended is closed when its
	// reports say so), the browser exited by itself (errBrowserExited),
	// the page was lost, or ctx ended.
	wait(ctx context.Context, ended <-chan struct{}) error
	// pid is the browser's process group.
	pid() int
	// stop ends the browser and whatever it left behind, and returns the
	// browser's Outcome.
	stop() (proc.Outcome, error)
	// log is the part of the browser's output that explains a failed page.
	log(out proc.Outcome) []byte
}

// bindingName is the DevTools binding reporter.js hands to the page.
const bindingName = "__spawnbenchReport"

//go:embed reporter.js
var reporterTemplate string

// reporterScript is reporter.js with its sink: a JavaScript expression
// for a function that takes one message.
func reporterScript(sinkName, sink string, argv []byte) string {
	return fmt.Sprintf(reporterTemplate, sinkName, sink, argv)
}

// bindingSink takes the DevTools binding name off the global scope.
func bindingSink(name string) string {
	return fmt.Sprintf("(() => { const b = globalThis[%[1]q]; delete globalThis[%[1]q]; return b; })()", name)
}

// postSink posts each message synchronously to path.
func postSink(path string) string {
	return fmt.Sprintf(`(msg) => {
    const req = new XMLHttpRequest();
    req.open("POST", %q, false);
    req.setRequestHeader("Content-Type", "text/plain;charset=utf-8");
    req.send(msg);
  }`, path)
}

// Run opens the page in a new browser, waits until the page calls
// spawnbench.exit, crashes, or ctx ends, and then ends the browser.
//
// As with proc.Run, a page that ran but failed is an Outcome and not an
// error: a page that passes ctx's deadline has TimedOut set, with the tail
// of the browser's own log on Stderr; a crashed page has a nonzero
// ExitCode and says why on Stderr ("out of memory" when Chromium reports
// it). A browser that exits before the page did is a nonzero ExitCode
// with its log. An error means the page could not be run at all, or ctx
// was cancelled (the Outcome then holds what came so far). Wall runs from
// the browser's start to its end, as a process's would.
func Run(ctx context.Context, p Page) (proc.Outcome, error) {
	b := p.Browser
	if b == nil {
		b = Chromium{}
	}
	// A missing page would only show as a timeout.
	if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(p.Path))); err != nil {
		return proc.Outcome{}, fmt.Errorf("the page to open: %w", err)
	}
	return runSession(ctx, b, p)
}

// runSession is one page in one fresh browser, the same for every
// browser: serve the build directory, make a profile, start the browser,
// collect the page's reports until it ends, stop the browser and whatever
// it left, clean up, and build the Outcome.
func runSession(ctx context.Context, b Browser, p Page) (proc.Outcome, error) {
	begun := time.Now()
	argv, err := json.Marshal(p.Argv)
	if err != nil {
		return proc.Outcome{}, fmt.Errorf("encode the page's arguments: %w", err)
	}
	rec := recorder{stdoutTo: p.Stdout}
	ended := make(chan struct{})
	var endOnce sync.Once
	var rep *reporter
	if b.postsReports() {
		rep = &reporter{
			script: []byte(reporterScript("a POST to "+reportPath+"report", postSink(reportPath+"report"), argv)),
			take: func(msg string) {
				if rec.take(msg) {
					endOnce.Do(func() { close(ended) })
				}
			},
		}
	}
	srv, err := serve(p.Dir, rep)
	if err != nil {
		return proc.Outcome{}, err
	}
	profile, err := os.MkdirTemp("", proc.ProfilePrefix(b.Name())+"*")
	if err != nil {
		srv.close()
		return proc.Outcome{}, fmt.Errorf("create the browser profile directory: %w", err)
	}
	s, err := b.open(ctx, p, srv.url, profile, &rec)
	if err != nil {
		srv.close()
		os.RemoveAll(profile)
		return proc.Outcome{}, err
	}
	runErr := s.wait(ctx, ended)
	if testHookBeforeStop != nil {
		testHookBeforeStop(s.pid(), profile)
	}

	// The browser goes first: it holds the server's connections and the
	// profile directory's files.
	browserOut, stopErr := s.stop()
	if errors.Is(stopErr, context.Canceled) || errors.Is(stopErr, context.DeadlineExceeded) {
		stopErr = nil // ctx's end is reported below
	}
	cleanupErr := errors.Join(stopErr, srv.close())
	if err := os.RemoveAll(profile); err != nil {
		cleanupErr = errors.Join(cleanupErr, fmt.Errorf("remove the browser profile directory: %w", err))
	}

	out := rec.outcome()
	out.Wall = time.Since(begun)
	// The page's cost is its browser's: the whole tree of browser processes.
	out.UserNS, out.SysNS, out.MaxRSSBytes, out.InvoluntaryCtxSwitches, out.OthersCPUNS, out.StealNS, out.OOMKilled = browserOut.UserNS, browserOut.SysNS, browserOut.MaxRSSBytes, browserOut.InvoluntaryCtxSwitches, browserOut.OthersCPUNS, browserOut.StealNS, browserOut.OOMKilled
	switch {
	case rec.ended():
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.TimedOut = true
	case ctx.Err() != nil:
		return out, errors.Join(ctx.Err(), cleanupErr)
	case errors.Is(runErr, errBrowserExited):
		out.ExitCode, out.Signal = browserOut.ExitCode, browserOut.Signal
		if out.ExitCode == 0 {
			out.ExitCode = 1
		}
		out.Stderr = appendLine(out.Stderr, "spawnbench: "+b.Name()+" exited before the page did")
	case runErr != nil && !rec.started():
		// The page never ran: the repetition could not start.
		return out, errors.Join(fmt.Errorf("run %s in %s: %w", p.Path, b.Name(), runErr), cleanupErr)
	case runErr != nil:
		out.ExitCode = 1
		out.Stderr = appendLine(out.Stderr, "spawnbench: lost the page: "+runErr.Error())
	}
	if status, code, crashed := rec.crash(); crashed {
		out.ExitCode = 1
		if code > 0 {
			out.ExitCode = int(code)
		}
		if status == "crashed" && code > 0 && code < 65 {
			// Chromium's code for a crashed renderer is the signal.
			out.Signal = syscall.Signal(code).String()
		}
		why := fmt.Sprintf("the page crashed: its renderer process ended (%s: status %q, code %d)", b.Name(), status, code)
		if oom := oomLine(browserOut.Stderr); oom != "" || status == "oom" {
			why = "the page ran out of memory: its renderer process ended (" + b.Name() + ": " + strings.TrimSpace(oom+" status "+status) + ")"
		}
		out.Stderr = appendLine(out.Stderr, "spawnbench: "+why)
	}
	if out.TimedOut || out.ExitCode != 0 || out.Signal != "" {
		// Workers write to the browser's log, not to the page: what a
		// dying worker said is only there.
		out.Stderr = appendLine(out.Stderr, "--- "+b.Name()+"'s log ---")
		out.Stderr = append(out.Stderr, s.log(browserOut)...)
	}
	return out, cleanupErr
}

// testHookBeforeStop lets tests look at a browser's processes (its
// process group id and profile directory) just before it is stopped.
var testHookBeforeStop func(pgid int, profile string)

// errBrowserExited is a session's error when the browser ended by itself.
var errBrowserExited = errors.New("the browser exited")

// drive runs the page in the started browser and returns when it has
// exited, crashed, or ctx has ended.
func drive(ctx context.Context, chrome *chromium, base string, p Page, rec *recorder) error {
	allocCtx, cancelAlloc := chromedp.NewAllocatorContext(ctx, chrome)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()

	argv, err := json.Marshal(p.Argv)
	if err != nil {
		return fmt.Errorf("encode the page's arguments: %w", err)
	}
	ended := make(chan struct{})
	var endOnce sync.Once
	end := func() { endOnce.Do(func() { close(ended) }) }
	if err := chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventBindingCalled:
			if ev.Name == bindingName && rec.take(ev.Payload) {
				end()
			}
		case *inspector.EventTargetCrashed:
			// The browser's Target.targetCrashed below says more; this
			// one ends the wait if that one does not come.
			rec.crashed("", 0)
			end()
		}
	}); err != nil {
		return fmt.Errorf("open a tab: %w", err)
	}
	if err := chromedp.ListenBrowser(tab, func(ev any) {
		if ev, ok := ev.(*target.EventTargetCrashed); ok {
			rec.crashed(ev.Status, ev.ErrorCode)
			end()
		}
	}); err != nil {
		return fmt.Errorf("listen to the browser: %w", err)
	}
	// Target.targetCrashed, which says how a renderer ended, only comes
	// to a browser session that discovers targets.
	if _, err := chromedp.CallBrowser(tab, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return fmt.Errorf("discover targets: %w", err)
	}
	// chromedp attaches to every worker the page starts; a DevTools
	// session per worker would add to the very cost being measured.
	if _, err := chromedp.Call(tab, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: false}); err != nil {
		return fmt.Errorf("stop attaching to workers: %w", err)
	}
	if _, err := chromedp.Call(tab, runtime.AddBinding, runtime.AddBindingParams{Name: bindingName}); err != nil {
		return fmt.Errorf("add the report binding: %w", err)
	}
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: reporterScript("a DevTools binding", bindingSink(bindingName), argv),
	}); err != nil {
		return fmt.Errorf("install reporter.js: %w", err)
	}
	pageURL := base + (&url.URL{Path: p.Path}).EscapedPath()
	rec.markStarted()
	res, err := chromedp.Call(tab, page.Navigate, page.NavigateParams{URL: pageURL})
	if err != nil {
		return fmt.Errorf("open %s: %w", pageURL, err)
	}
	if res.ErrorText != "" {
		return fmt.Errorf("open %s: %s", pageURL, res.ErrorText)
	}
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-chrome.proc.Done():
		return errBrowserExited
	}
}

// recorder collects what the page reports, from the DevTools reading
// goroutine, for the Outcome.
type recorder struct {
	mu sync.Mutex
	// stdoutTo, when set, takes the stdout lines in place of stdout.
	stdoutTo io.Writer
	stdout   []byte
	stderr   []byte
	exitCode int
	exited   bool
	begun    bool
	// died is set when the renderer died before the page exited.
	died        bool
	deathStatus string
	deathCode   int64
}

// take records one message of reporter.js and says whether it ended the
// run.
func (r *recorder) take(msg string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited || msg == "" {
		return r.exited
	}
	switch kind, text := msg[0], msg[1:]; kind {
	case 'o':
		if r.stdoutTo != nil {
			_, _ = io.WriteString(r.stdoutTo, text+"\n")
			break
		}
		r.stdout = appendLine(r.stdout, text)
	case 'e':
		r.stderr = appendLine(r.stderr, text)
	case 'x':
		code, err := strconv.Atoi(text)
		if err != nil {
			r.stderr = appendLine(r.stderr, fmt.Sprintf("spawnbench: the page exited with status %q, not a number", text))
			code = 1
		}
		r.exitCode, r.exited = code, true
	}
	return r.exited
}

// crashed records that the page's renderer died. status is Chromium's
// termination status ("crashed", "oom", "killed", ...) when known.
func (r *recorder) crashed(status string, code int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited && !r.died {
		return // the page had exited: its renderer's end is no news
	}
	r.exited, r.died = true, true
	if status != "" {
		r.deathStatus, r.deathCode = status, code
	}
}

// crash says whether and how the renderer died.
func (r *recorder) crash() (status string, code int64, crashed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deathStatus, r.deathCode, r.died
}

func (r *recorder) markStarted() {
	r.mu.Lock()
	r.begun = true
	r.mu.Unlock()
}

func (r *recorder) started() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.begun
}

func (r *recorder) ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exited
}

func (r *recorder) outcome() proc.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	var stdout []byte
	if r.stdoutTo == nil {
		stdout = append([]byte(nil), r.stdout...)
	}
	return proc.Outcome{
		Stdout:   stdout,
		Stderr:   append([]byte(nil), r.stderr...),
		ExitCode: r.exitCode,
	}
}

func appendLine(b []byte, line string) []byte {
	b = append(b, line...)
	return append(b, '\n')
}

// oomLine returns the first line of Chromium's log that says a process
// ran out of memory ("V8 javascript OOM", "Out of memory"), or "".
func oomLine(log []byte) string {
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, " OOM") || strings.Contains(strings.ToLower(line), "out of memory") {
			if i := strings.Index(line, "] "); i >= 0 && strings.HasPrefix(line, "[") {
				line = line[i+2:] // drop Chromium's [pid:tid:time:LEVEL:file] prefix
			}
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// consoleLines keeps, from Chromium's log, the console messages and the
// fatal errors: the rest is start-up noise about D-Bus and fonts.
func consoleLines(log []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(log, []byte("\n")) {
		s := string(line)
		if strings.Contains(s, ":CONSOLE") || strings.Contains(s, ":FATAL") || strings.Contains(s, "Check failed") ||
			strings.Contains(s, " OOM") || strings.Contains(strings.ToLower(s), "out of memory") {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}
