// Package browser runs benchmark pages in headless browsers, Chromium or
// Firefox, and reports each page the way engine/proc reports a process:
// its standard output lines, standard error, exit status, wall time and
// cost.
//
// This package is opinionated: every page gets a renderer process and a
// site of its own, and nothing of an earlier page. A page runs in a fresh
// isolated context (a Chromium browser context, a Firefox user context:
// no cache, storage, process or worker shared with any other page), on an
// origin no earlier page had (a loopback address and port of its own), so
// site isolation gives it a renderer process of its own; the Outcome names
// that process (RendererPID). The browser around it is either kept warm
// for the pages after (Warm: one browser for many pages, as a person's
// open browser is) or started cold for the page alone (Run: a fresh
// browser on a fresh profile, as a fresh `node` process is). A browser is
// started pinned, in its own process group and under engine/proc's
// containment, with a profile and a temporary directory of its own, and
// its whole tree is killed, and both directories removed, when it ends,
// misbehaves (crashes, hangs, loses its connection), passes a page's
// timeout or is interrupted. Pages are served from one directory only, on
// loopback, cross-origin isolated.
//
// A page talks to spawnbench through a small object,
// spawnbench.{argv,out,err,exit} (reporter.js), so a page needs no
// knowledge of the browser it runs in: each line is posted to the page
// server as it is printed, so a crash keeps every line printed before it.
// spawnbench drives Chromium over the DevTools protocol and Firefox over
// WebDriver BiDi, only to open and close contexts.
//
// A browser is a value of the Browser interface: Chromium and Firefox
// here. Another set of flags for either is a field; another browser is
// one more implementation of Browser.
package browser

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

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
	// Browser runs the page in Run; nil means Chromium{}, Debian's
	// Chromium with spawnbench's flags. A Warm has its own browser.
	Browser Browser
	// Stdout, when set, receives each line the page prints to standard
	// output as it comes, and the Outcome's Stdout is nil (as with
	// proc.Command.Stdout).
	Stdout io.Writer
}

// Browser is one browser that spawnbench can start, headless, on a fresh
// profile, and open pages in.
type Browser interface {
	// Name names the browser in messages, e.g. "chromium".
	Name() string
	// Executable is the browser command that is started.
	Executable() string
	// Version returns the browser's version line.
	Version(ctx context.Context) (string, error)
	// launch starts the browser on profile (with env, which keeps its
	// files there), pinned to cpus, for as long as life lasts, and waits,
	// within ctx, until it takes pages. A browser that exits meanwhile is
	// errBrowserExited, with the instance to stop. With first, the
	// browser is started for that page alone (a cold start): a browser
	// that can open it at its start does, and says so (opened), so that
	// it runs as it would without spawnbench driving it.
	launch(ctx, life context.Context, cpus []int, profile string, env []string, first *firstPage) (inst instance, opened bool, err error)
	// pageListener makes the listeners of the page servers of a page
	// started warm or cold: in the network the browser is in; nil for
	// the machine's loopback.
	pageListener(cold bool) listenFunc
}

// instance is one started browser: the part of a page's run that differs
// between browsers. Warm is the rest.
type instance interface {
	// open opens pageURL in a fresh isolated context, its reports going
	// to rec, and returns the tab to close when the page has ended.
	open(ctx context.Context, pageURL string, rec *recorder) (tab, error)
	// renderer is the renderer process that ran the page: of the
	// processes that render pages in now, the newest that did not in
	// before; 0 when none is found.
	renderer(ctx context.Context, before, now procTable) int
	// gone is closed when the browser exited or spawnbench lost its
	// connection to it.
	gone() <-chan struct{}
	// exited is closed once the browser's process tree has ended.
	exited() <-chan struct{}
	// pid is the browser's process group.
	pid() int
	// stop ends the browser and whatever it left behind, and returns the
	// browser's Outcome.
	stop() (proc.Outcome, error)
	// log is the part of the browser's output that explains a failed page.
	log(out proc.Outcome) []byte
	// tree is the browser's process tree, for freezing it between pages.
	tree() *proc.Started
}

// firstPage is the page a cold browser is started for.
type firstPage struct {
	url string
	rec *recorder
}

// tab is one page's isolated context.
type tab interface {
	// close closes the context, and with it the page and its renderer.
	close(ctx context.Context) error
}

//go:embed reporter.js
var reporterTemplate string

// reporterScript is reporter.js for a page with argv (JSON), posting to
// path (under the page's secret); with follow, the page first posts
// followMessage and waits for its answer.
func reporterScript(path string, argv []byte, follow bool) string {
	return fmt.Sprintf(reporterTemplate, path, argv, follow)
}

// followMessage is what a traced page posts before it runs.
const followMessage = "t"

// errBrowserExited is an instance's error when the browser ended by
// itself; errLost when spawnbench lost its connection to it.
var (
	errBrowserExited = errors.New("the browser exited")
	errLost          = errors.New("lost the connection to the browser")
)

// recorder collects what the page reports, from the page server's and
// the protocol's goroutines, for the Outcome.
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
	// lost says why the page was lost, if it was.
	lost string
	// refused counts the requests its page server refused for want of
	// the page's secret.
	refused int64
	// done is closed once the page has exited, crashed or been lost.
	done     chan struct{}
	doneOnce sync.Once
}

func newRecorder(stdoutTo io.Writer) *recorder {
	return &recorder{stdoutTo: stdoutTo, done: make(chan struct{})}
}

func (r *recorder) end() { r.doneOnce.Do(func() { close(r.done) }) }

// take records one message of reporter.js.
func (r *recorder) take(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited || msg == "" {
		return
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
		r.end()
	}
}

// refusedShown is how many refused requests a page's standard error
// describes, each in a line; the rest are only counted, so that a flood
// of them cannot fill spawnbench's memory.
const refusedShown = 5

// refuse records a request that the page server refused for want of the
// page's secret: someone else's, since the page's own carry it. It is
// recorded whenever it comes, after the page's exit too.
func (r *recorder) refuse(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused++
	switch {
	case r.refused <= refusedShown:
		r.stderr = appendLine(r.stderr, "spawnbench: the page server refused a request without the page's secret (not the page's): "+what)
	case r.refused == refusedShown+1:
		r.stderr = appendLine(r.stderr, "spawnbench: the page server refused more requests without the page's secret; they are counted, not shown")
	}
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
	r.end()
}

// lose records that the page went away without exiting (its tab was
// closed by someone else, say).
func (r *recorder) lose(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited {
		return
	}
	r.lost = why
	r.end()
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

// ended says whether the page exited or its renderer died.
func (r *recorder) ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exited
}

// lostWhy is why the page was lost; "" if it was not.
func (r *recorder) lostWhy() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost
}

// clean says whether the page exited by itself with status 0.
func (r *recorder) clean() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exited && !r.died && r.exitCode == 0
}

func (r *recorder) outcome() proc.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	var stdout []byte
	if r.stdoutTo == nil {
		stdout = append([]byte(nil), r.stdout...)
	}
	return proc.Outcome{
		Stdout:          stdout,
		Stderr:          append([]byte(nil), r.stderr...),
		ExitCode:        r.exitCode,
		RefusedRequests: ptr(r.refused),
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

// logTail returns the last lines of a browser's output, at most 64 KiB:
// the end says why it died.
func logTail(stdout, stderr []byte) []byte {
	const keep = 64 << 10
	var out []byte
	for _, b := range [][]byte{stdout, stderr} {
		if len(b) > keep/2 {
			b = b[len(b)-keep/2:]
		}
		out = append(out, b...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}

// tail keeps the last bytes written to it: a warm browser's console, which
// runs for a whole run.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// Bytes returns the last max bytes written.
func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return append([]byte(nil), b...)
}
