package browser

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"spawnbench/engine/proc"
)

// DefaultChromium is the browser command when a Page names none: Debian's
// package.
const DefaultChromium = "chromium"

// Flags are the flags every browser gets besides its profile directory.
// The first group is what headless Chromium needs on a machine with no
// display, no GPU and no way out to the internet (without the networking
// flags it keeps trying hosts it cannot reach). The second keeps a page
// running at full speed though nobody looks at it. The third turns off
// the spare renderer, a process Chromium starts ahead for the next
// navigation in a context: every page here is the only one of its
// context, so a spare would never serve a page, only take CPU beside one,
// and the page's renderer is then the newest renderer of its context. The
// last two send console messages, which workers can only write there, to
// stderr, and speak DevTools over file descriptors 3 and 4 rather than a
// TCP port.
func Flags() []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-default-browser-check", "--disable-extensions", "--mute-audio",

		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		"--disable-backgrounding-occluded-windows",

		"--disable-features=SpareRendererForSitePerProcess",

		"--enable-logging=stderr", "--v=0",
		"--remote-debugging-pipe",
	}
}

// Chromium is Debian's Chromium (or another Chromium build), headless,
// driven over the DevTools protocol: each page in a browser context of
// its own (Target.createBrowserContext), disposed when the page has
// ended.
type Chromium struct {
	// Command is the browser command; empty means DefaultChromium.
	Command string
	// Flags are added after Flags().
	Flags []string
}

func (c Chromium) Name() string { return "chromium" }

// Executable is the browser command that is started.
func (c Chromium) Executable() string {
	if c.Command == "" {
		return DefaultChromium
	}
	return c.Command
}

// Version returns the browser's version line, e.g. "Chromium 156.0.8078.108
// built on Debian GNU/Linux 12 (bookworm)".
func (c Chromium) Version(ctx context.Context) (string, error) {
	return versionLine(ctx, c.Executable())
}

// versionLine runs `browser --version` and returns its last line.
func versionLine(ctx context.Context, browser string) (string, error) {
	path, err := exec.LookPath(browser)
	if err != nil {
		return "", fmt.Errorf("browser %q not found on PATH: %w", browser, err)
	}
	out, err := proc.ToolFact(ctx, path, "--version")
	if err != nil {
		return "", err
	}
	return lastLine(out), nil
}

// lastLine is a version query's last line: Debian's wrapper script can
// print shell noise before the version.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// chromium is one running browser. It is also the chromedp Allocator that
// hands chromedp the DevTools pipe of that browser: spawnbench, not
// chromedp, owns the process, so that it is pinned and group-killed like
// every other benchmark process.
type chromium struct {
	proc        *proc.Started
	profile     string
	toBrowser   *os.File
	fromBrowser *os.File
	// cdp is the chromedp context of the browser connection; endCDP ends
	// it.
	cdp    context.Context
	endCDP context.CancelFunc
	lost   chan struct{}

	mu sync.Mutex
	// pages are the recorders of the open pages, by target.
	pages map[target.ID]*recorder
}

// launch starts Chromium and connects to it; a cold start's page too is
// opened by open, so that spawnbench listens for its renderer's crash
// before it runs.
func (c Chromium) launch(ctx, life context.Context, cpus []int, profile string, env []string, _ *firstPage) (instance, bool, error) {
	inst, err := c.start(ctx, life, cpus, profile, env)
	if inst == nil {
		return nil, false, err
	}
	return inst, false, err
}

func (c Chromium) start(ctx, life context.Context, cpus []int, profile string, env []string) (*chromium, error) {
	// Chromium reads commands from fd 3 and writes answers to fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the DevTools command pipe: %w", err)
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("create the DevTools answer pipe: %w", err)
	}
	argv := append([]string{c.Executable()}, Flags()...)
	argv = append(argv, c.Flags...)
	argv = append(argv, "--user-data-dir="+profile, "about:blank")
	// Chromium makes its singleton socket in a directory of its own in
	// the temporary directory, and dies if the socket's path is longer
	// than a socket address holds (107 bytes): "Socket path too long".
	// The profile, in $TMPDIR, is long already, so Chromium runs in the
	// profile and is given the temporary directory by its relative path.
	env = append(env, "TMPDIR="+tmpName)
	started, err := proc.Start(life, proc.Command{Argv: argv, Dir: profile, Env: env, CPUs: cpus, Stdout: io.Discard}, cmdR, ansW)
	// The browser has its own copies of its ends now.
	cmdR.Close()
	ansW.Close()
	if err != nil {
		cmdW.Close()
		ansR.Close()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	chrome := &chromium{proc: started, profile: profile, toBrowser: cmdW, fromBrowser: ansR, lost: make(chan struct{}), pages: map[target.ID]*recorder{}}
	allocCtx, endAlloc := chromedp.NewAllocatorContext(life, chrome)
	bctx, endB := chromedp.NewContext(allocCtx)
	chrome.cdp, chrome.endCDP = bctx, func() { endB(); endAlloc() }
	if err := chromedp.ListenBrowser(bctx, chrome.event); err != nil {
		return chrome, chrome.startErr(fmt.Errorf("connect to chromium: %w", err))
	}
	go func() {
		select {
		case <-chromedp.FromContext(bctx).Browser.LostConnection:
		case <-started.Done():
		}
		close(chrome.lost)
	}()
	// Target.targetCrashed, which says how a renderer ended, only comes
	// to a browser session that discovers targets.
	cctx, cancel := bounded(bctx, ctx)
	defer cancel()
	if _, err := chromedp.CallBrowser(cctx, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return chrome, chrome.startErr(fmt.Errorf("discover targets: %w", err))
	}
	return chrome, nil
}

// pageListener: Chromium is on the machine's loopback. Its DevTools
// channel is a pipe no one else holds, and its pages' servers refuse
// requests without their secrets.
func (c Chromium) pageListener(bool) listenFunc { return nil }

// startErr is err, or errBrowserExited if the browser has exited.
func (c *chromium) startErr(err error) error {
	if isClosed(c.exited()) {
		return errBrowserExited
	}
	return err
}

// bounded is the chromedp context cdpCtx, for a call that also ends when
// ctx ends.
func bounded(cdpCtx, ctx context.Context) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancel(cdpCtx)
	stop := context.AfterFunc(ctx, cancel)
	return cctx, func() { stop(); cancel() }
}

// event takes the browser's events, on chromedp's reading goroutine.
func (c *chromium) event(ev any) {
	switch ev := ev.(type) {
	case *target.EventTargetCrashed:
		if rec := c.page(ev.TargetID); rec != nil {
			rec.crashed(ev.Status, ev.ErrorCode)
		}
	case *target.EventTargetDestroyed:
		if rec := c.page(ev.TargetID); rec != nil {
			rec.lose("its tab was closed")
		}
	}
}

func (c *chromium) page(id target.ID) *recorder {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[id]
}

// chromiumTab is one page's browser context and its target.
type chromiumTab struct {
	c       *chromium
	context cdp.BrowserContextID
	target  target.ID
}

// open makes a browser context and opens the page in a new target of it.
// The page reports by posting to its server, so spawnbench does not
// attach to it: a DevTools session in the page, or in its workers, would
// add to the very cost being measured.
func (c *chromium) open(ctx context.Context, pageURL string, rec *recorder) (tab, error) {
	cctx, cancel := bounded(c.cdp, ctx)
	defer cancel()
	bc, err := chromedp.CallBrowser(cctx, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return nil, fmt.Errorf("create a browser context: %w", err)
	}
	t := &chromiumTab{c: c, context: bc.BrowserContextID}
	tg, err := chromedp.CallBrowser(cctx, target.CreateTarget, target.CreateTargetParams{URL: pageURL, BrowserContextID: bc.BrowserContextID})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", pageURL, err)
	}
	rec.markStarted()
	t.target = tg.TargetID
	c.mu.Lock()
	c.pages[t.target] = rec
	c.mu.Unlock()
	return t, nil
}

// close disposes of the browser context, and with it its target.
func (t *chromiumTab) close(ctx context.Context) error {
	t.c.mu.Lock()
	delete(t.c.pages, t.target)
	t.c.mu.Unlock()
	cctx, cancel := bounded(t.c.cdp, ctx)
	defer cancel()
	if _, err := chromedp.CallBrowser(cctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: t.context}); err != nil {
		return fmt.Errorf("dispose of the page's browser context: %w", err)
	}
	return nil
}

// renderer asks Chromium for its renderer processes: the page's is the
// newest that is new since before. A page's context has two: the one its
// tab opened with (an empty document), and the one its cross-origin
// isolated page moved to when its response came (COOP puts it in a
// browsing context group, so a process, of its own).
func (c *chromium) renderer(ctx context.Context, before, now procTable) int {
	cctx, cancel := bounded(c.cdp, ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(cctx, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		return 0
	}
	var pids []int
	for _, p := range res.ProcessInfo {
		if p.Type == "renderer" {
			pids = append(pids, int(p.ID))
		}
	}
	return newest(pids, before, now)
}

// newest is the pid among pids that runs in now, not as the same process
// in before, and started last.
func newest(pids []int, before, now procTable) int {
	best := 0
	for _, pid := range pids {
		p, ok := now[pid]
		if !ok || before.has(pid, p) {
			continue
		}
		if b, ok := now[best]; best == 0 || !ok || p.start > b.start || (p.start == b.start && pid > best) {
			best = pid
		}
	}
	return best
}

func (c *chromium) gone() <-chan struct{} { return c.lost }

func (c *chromium) exited() <-chan struct{} { return c.proc.Done() }

func (c *chromium) pid() int { return c.proc.Pid }

// log is the console lines of Chromium's log.
func (c *chromium) log(out proc.Outcome) []byte { return consoleLines(out.Stderr) }

// Allocate connects chromedp to the browser's pipe.
func (c *chromium) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	return chromedp.NewBrowserTransport(ctx, chromedp.NewPipeConn(c.fromBrowser, c.toBrowser), opts...)
}

// Wait has nothing to wait for: stop ends the browser.
func (c *chromium) Wait() {}

// Attaches tells chromedp that it did not start this browser, so it
// neither closes nor waits for it: stop does.
func (c *chromium) Attaches() bool { return true }

// stop kills the browser's process group, then the crash handlers that
// left it, and returns the browser's Outcome.
func (c *chromium) stop() (proc.Outcome, error) {
	out, err := c.proc.Stop()
	c.endCDP()
	c.toBrowser.Close()
	c.fromBrowser.Close()
	if kerr := killLeftovers(c.proc.Pid, c.profile); err == nil {
		err = kerr
	}
	return out, err
}
