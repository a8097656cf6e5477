package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"spawnbench/engine/proc"
)

// Warm is one browser kept open for many pages, one at a time: started on
// the first page, and started anew when it has misbehaved (exited, lost
// its connection, hung past a page's timeout, or run a page that did not
// exit cleanly: the log that explains a failed page is only complete once
// the browser has ended) or when a page asks for other CPUs. Each page
// gets a fresh isolated context on a new origin, so a renderer process of
// its own, and nothing of the pages before it. Close ends the browser;
// should spawnbench die first, engine/proc's containment ends it.
type Warm struct {
	b Browser

	mu      sync.Mutex
	inst    instance // nil while no browser runs
	endLife context.CancelFunc
	profile string
	cpus    []int
	origins int // loopback addresses handed out
	// frozen: the browser's tree is frozen between pages (freeze.go).
	frozen bool
	// notKept says why the last browser was stopped after a clean page
	// (its tab did not close, or its tree did not freeze, in time), for
	// the messages of tests that expect it kept.
	notKept error
}

// NewWarm returns a warm browser of b (nil: Chromium{}); none is started
// until the first page.
func NewWarm(b Browser) *Warm {
	if b == nil {
		b = Chromium{}
	}
	return &Warm{b: b}
}

// Run opens the page in a new browser (a cold start: a fresh browser on a
// fresh profile), waits until the page calls spawnbench.exit, crashes, or
// ctx ends, and then ends the browser. Wall runs from the browser's start
// to its end, and the page's cost is the whole browser tree's, as a
// process's would be.
//
// As with proc.Run, a page that ran but failed is an Outcome and not an
// error: a page that passes ctx's deadline has TimedOut set, with the tail
// of the browser's own log on Stderr; a crashed page has a nonzero
// ExitCode and says why on Stderr ("out of memory" when Chromium reports
// it). A browser that exits before the page did is a nonzero ExitCode
// with its log. An error means the page could not be run at all, or ctx
// was cancelled (the Outcome then holds what came so far).
func Run(ctx context.Context, p Page) (proc.Outcome, error) {
	w := NewWarm(p.Browser)
	out, err := w.coldPage(ctx, p)
	return out, errors.Join(err, w.Close())
}

// Close ends the browser, if one runs.
func (w *Warm) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inst == nil {
		return nil
	}
	_, err := w.stopBrowser()
	return err
}

// testHookBeforeStop lets tests look at a browser's processes (its
// process group id and profile directory) just before it is stopped.
var testHookBeforeStop func(pgid int, profile string)

// start starts the browser, pinned to cpus, on a fresh profile with a
// temporary directory inside it.
func (w *Warm) start(ctx context.Context, cpus []int, first *firstPage) (opened bool, err error) {
	profile, err := os.MkdirTemp("", profilePrefix(w.b.Name())+"*")
	if err != nil {
		return false, fmt.Errorf("create the browser profile directory: %w", err)
	}
	// Everything the browser writes goes inside the profile: its
	// configuration, its cache and its temporary files (Chromium's
	// org.chromium.Chromium.* directories), so that removing the profile
	// removes all of it, and the crash handlers name the profile, so that
	// killLeftovers finds them.
	tmp := filepath.Join(profile, tmpName)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(profile)
		return false, fmt.Errorf("create the browser's temporary directory: %w", err)
	}
	env := []string{
		"TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(profile, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(profile, "cache"),
	}
	life, endLife := context.WithCancel(context.Background())
	inst, opened, err := w.b.launch(ctx, life, cpus, profile, env, first)
	if inst == nil {
		endLife()
		os.RemoveAll(profile)
		return false, err
	}
	w.inst, w.endLife, w.profile, w.cpus = inst, endLife, profile, slices.Clone(cpus)
	return opened, err
}

// tmpName is the browser's temporary directory in its profile.
const tmpName = "tmp"

// stopBrowser ends the browser and removes its profile.
func (w *Warm) stopBrowser() (proc.Outcome, error) {
	if testHookBeforeStop != nil {
		testHookBeforeStop(w.inst.pid(), w.profile)
	}
	thawErr := w.thaw() // a frozen browser cannot close itself
	out, err := w.inst.stop()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = nil // the page's context's end is reported by the page
	}
	err = errors.Join(err, thawErr)
	w.endLife()
	if rerr := os.RemoveAll(w.profile); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove the browser profile directory: %w", rerr))
	}
	w.inst, w.endLife, w.profile = nil, nil, ""
	return out, err
}

// nextHost is a loopback address no recent page had: 127.0.0.2 to
// 127.0.0.254 in turn (the port, picked by the kernel, differs too).
func (w *Warm) nextHost() string {
	w.origins++
	return fmt.Sprintf("127.0.0.%d", 2+(w.origins-1)%253)
}

// Warm and cold pages take two paths through the same steps: servePage
// serves the page, openAndAwait opens it and waits for its end, rendererOf
// finds its renderer and pageEnd turns how it ended into its Outcome. A
// cold page (coldPage) starts a browser for itself, on the page, and is
// charged the browser's whole life; a warm page (Run) reuses the browser,
// is charged only what it used, and leaves the browser frozen (keepFor).

// Run opens the page in the warm browser, starting it first if none runs,
// and waits as the package's Run does. Wall runs from the opening of the
// page's context to its closing (spawnbench's reading of /proc between
// the two left out), and the page's cost is what the browser tree used
// meanwhile (UserNS, SysNS; OthersCPUNS and StealNS the machine's, over
// the same span), its peak memory the renderer's; a page that starts a
// browser is not charged the browser's start.
func (w *Warm) Run(ctx context.Context, p Page) (proc.Outcome, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pg, err := w.servePage(p, w.b.pageListener(false), proc.FollowHook(ctx))
	if err != nil {
		return proc.Outcome{}, err
	}
	cleanupErr := w.readyFor(p.CPUs)
	if w.inst == nil {
		// With no first page, the browser opens none itself.
		if _, err := w.start(ctx, p.CPUs, nil); err != nil {
			out, ferr := w.failedLaunch(ctx, pg.begun, err)
			return out, errors.Join(ferr, pg.srv.close())
		}
	}
	inst := w.inst

	before := groupProcs(inst.pid())
	pg.runsIn(inst, before)
	span := beginSpan()
	// A warm page's wall time is its context's, from its opening to its
	// closing: spawnbench's reading of /proc is left out.
	opening := time.Now()
	t, runErr := pg.openAndAwait(ctx, inst, false)
	pageWall := time.Since(opening)
	now := groupProcs(inst.pid())
	cost := span.end(before, now)
	renderer := pg.rendererOf(inst, before, now)
	rss := int64(0)
	if renderer > 0 {
		rss = peakRSS(renderer) // before the tab's closing ends the renderer
	}

	keep, closing := w.keepFor(ctx, pg.rec, t, runErr, renderer)
	pageWall += closing
	var browserOut proc.Outcome
	if !keep {
		// The browser goes first: it holds the server's connections.
		var stopErr error
		browserOut, stopErr = w.stopBrowser()
		cleanupErr = errors.Join(cleanupErr, stopErr)
	}
	cleanupErr = errors.Join(cleanupErr, pg.srv.close())

	out := pg.rec.outcome()
	out.Wall = pageWall
	out.RendererPID = renderer
	out.UserNS, out.SysNS, out.OthersCPUNS, out.StealNS = cost.userNS, cost.sysNS, cost.othersNS, cost.stealNS
	if rss > 0 {
		out.MaxRSSBytes = &rss
	}
	return w.pageEnd(ctx, pg, inst, runErr, browserOut, out, cleanupErr)
}

// coldPage runs p in a browser started for it, on it, and stopped after
// it: the package's Run.
func (w *Warm) coldPage(ctx context.Context, p Page) (proc.Outcome, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pg, err := w.servePage(p, w.b.pageListener(true), proc.FollowHook(ctx))
	if err != nil {
		return proc.Outcome{}, err
	}
	opened, err := w.start(ctx, p.CPUs, &firstPage{url: pg.url, rec: pg.rec})
	if err != nil {
		out, ferr := w.failedLaunch(ctx, pg.begun, err)
		return out, errors.Join(ferr, pg.srv.close())
	}
	inst := w.inst

	before := groupProcs(inst.pid())
	pg.runsIn(inst, before)
	_, runErr := pg.openAndAwait(ctx, inst, opened) // the tab ends with the browser
	renderer := pg.rendererOf(inst, before, groupProcs(inst.pid()))

	// The browser goes first: it holds the server's connections.
	browserOut, stopErr := w.stopBrowser()
	cleanupErr := errors.Join(stopErr, pg.srv.close())

	out := pg.rec.outcome()
	out.Wall = time.Since(pg.begun)
	out.RendererPID = renderer
	// The page's cost is its browser's: the whole tree of browser
	// processes, over the browser's life.
	chargeBrowser(&out, browserOut)
	return w.pageEnd(ctx, pg, inst, runErr, browserOut, out, cleanupErr)
}

// servedPage is a page being run: its server, its address there, and
// what it reports.
type servedPage struct {
	path  string // the page's, in its directory
	url   string
	srv   *server
	rec   *recorder
	begun time.Time
	// follow is the follow hook (proc.WithFollowHook) of a traced page,
	// given its renderer before the page runs; nil for any other page.
	follow func(pid int)

	mu       sync.Mutex
	inst     instance  // the browser the page runs in, once known
	before   procTable // the browser's processes before the page opened
	followed bool      // the page has asked once: later asks are ignored
}

// servePage checks the page and serves it on an origin of its own, on
// listen (the browser's pageListener); follow is its follow hook, if any.
func (w *Warm) servePage(p Page, listen listenFunc, follow func(pid int)) (*servedPage, error) {
	// A missing page would only show as a timeout.
	if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(p.Path))); err != nil {
		return nil, fmt.Errorf("the page to open: %w", err)
	}
	argv, err := json.Marshal(p.Argv)
	if err != nil {
		return nil, fmt.Errorf("encode the page's arguments: %w", err)
	}
	pg := &servedPage{path: p.Path, begun: time.Now(), rec: newRecorder(p.Stdout), follow: follow}
	rep := &reporter{argv: argv, take: pg.rec.take, refuse: pg.rec.refuse}
	if follow != nil {
		rep.follow = pg.followRenderer
	}
	pg.srv, err = serve(p.Dir, w.nextHost(), listen, rep)
	if err != nil {
		return nil, err
	}
	pg.url = pg.srv.url + strings.TrimPrefix((&url.URL{Path: p.Path}).EscapedPath(), "/")
	return pg, nil
}

// runsIn says which browser the page is opened in, and the browser's
// processes before it: its renderer is the newest since.
func (pg *servedPage) runsIn(inst instance, before procTable) {
	pg.mu.Lock()
	pg.inst, pg.before = inst, before
	pg.mu.Unlock()
}

// followRenderer gives the follow hook the page's renderer, on the
// page's followMessage: the page is running (its first script posted
// it) and waits for the answer, so nothing of the page's own has run
// yet. Where the renderer is not found the hook is not called, and the
// trace says its process was never given.
func (pg *servedPage) followRenderer() {
	pg.mu.Lock()
	inst, before, again := pg.inst, pg.before, pg.followed
	pg.followed = true
	pg.mu.Unlock()
	if inst == nil || again {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if pid := inst.renderer(ctx, before, groupProcs(inst.pid())); pid > 0 {
		pg.follow(pid)
	}
}

// readyFor makes the warm browser fit for a page on cpus: a browser that
// is lost or pinned elsewhere is stopped, a frozen one thawed (or stopped
// if it cannot be). What a stopped browser said was no page's: only the
// error of stopping it is returned.
func (w *Warm) readyFor(cpus []int) error {
	var err error
	if w.inst != nil && (isClosed(w.inst.gone()) || !slices.Equal(w.cpus, cpus)) {
		_, err = w.stopBrowser()
	}
	if w.inst != nil {
		if terr := w.thaw(); terr != nil {
			_, stopErr := w.stopBrowser()
			err = errors.Join(err, terr, stopErr)
		}
	}
	return err
}

// openAndAwait opens the page in a tab of inst, unless the browser opened
// it itself, and waits until the page ends, ctx ends or the browser is
// lost. The error says how the browser failed the page: errLost,
// errBrowserExited, or what opening it or the page's server said.
func (pg *servedPage) openAndAwait(ctx context.Context, inst instance, opened bool) (tab, error) {
	var t tab
	var err error
	if !opened {
		t, err = inst.open(ctx, pg.url, pg.rec)
	}
	if err == nil {
		select {
		case <-pg.rec.done:
		case <-ctx.Done():
		case <-inst.gone():
			// Reports already under way still count.
			select {
			case <-pg.rec.done:
			case <-time.After(100 * time.Millisecond):
			}
			// A browser that died drops its connection a moment before
			// its tree is reaped.
			err = errLost
			select {
			case <-inst.exited():
				err = errBrowserExited
			case <-time.After(2 * time.Second):
			}
		}
	}
	if why := pg.rec.lostWhy(); why != "" && err == nil {
		err = errors.New(why)
	}
	return t, err
}

// rendererOf is the page's renderer process among inst's processes (new
// since before, or there now); 0 when the page did not end or it is not
// found.
func (pg *servedPage) rendererOf(inst instance, before, now procTable) int {
	if !pg.rec.ended() {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return inst.renderer(ctx, before, now)
}

// keepFor says whether the warm browser is kept for the next page, and
// how long closing the page's tab took. It is kept only after a page
// that exited cleanly, only if its tab closes, and frozen: nothing of the
// browser runs beside the next process.
func (w *Warm) keepFor(ctx context.Context, rec *recorder, t tab, runErr error, renderer int) (bool, time.Duration) {
	if runErr != nil || ctx.Err() != nil || !rec.clean() {
		return false, 0
	}
	closing := time.Now()
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := t.close(cctx)
	cancel()
	took := time.Since(closing)
	if err != nil {
		err = fmt.Errorf("close the page's tab: %w", err)
	} else {
		err = w.freeze(renderer)
	}
	w.notKept = err
	return err == nil, took
}

// pageEnd completes out, the page's Outcome, from how the page ended:
// timed out, lost, crashed or exited with its browser (browserOut, when
// stopped), the browser's log added to any failure. A page cancelled or
// never started is an error, with cleanupErr (the error of stopping the
// browser and the server) joined to it, as it is returned otherwise.
func (w *Warm) pageEnd(ctx context.Context, pg *servedPage, inst instance, runErr error, browserOut, out proc.Outcome, cleanupErr error) (proc.Outcome, error) {
	name := w.b.Name()
	rec := pg.rec
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
		out.Stderr = appendLine(out.Stderr, "spawnbench: "+name+" exited before the page did")
	case runErr != nil && !rec.started():
		// The page never ran: the repetition could not start.
		return out, errors.Join(fmt.Errorf("run %s in %s: %w", pg.path, name, runErr), cleanupErr)
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
		why := fmt.Sprintf("the page crashed: its renderer process ended (%s: status %q, code %d)", name, status, code)
		if oom := oomLine(browserOut.Stderr); oom != "" || status == "oom" {
			why = "the page ran out of memory: its renderer process ended (" + name + ": " + strings.TrimSpace(oom+" status "+status) + ")"
		}
		out.Stderr = appendLine(out.Stderr, "spawnbench: "+why)
	}
	if out.TimedOut || out.ExitCode != 0 || out.Signal != "" {
		// Workers write to the browser's log, not to the page: what a
		// dying worker said is only there.
		out.Stderr = appendLine(out.Stderr, "--- "+name+"'s log ---")
		out.Stderr = append(out.Stderr, inst.log(browserOut)...)
	}
	return out, cleanupErr
}

// chargeBrowser charges out with the cost of its browser's whole life,
// browserOut: a cold page's, or a page whose browser did not start.
func chargeBrowser(out *proc.Outcome, browserOut proc.Outcome) {
	out.UserNS, out.SysNS, out.MaxRSSBytes, out.InvoluntaryCtxSwitches = browserOut.UserNS, browserOut.SysNS, browserOut.MaxRSSBytes, browserOut.InvoluntaryCtxSwitches
	out.OthersCPUNS, out.StealNS, out.OOMKilled = browserOut.OthersCPUNS, browserOut.StealNS, browserOut.OOMKilled
}

// failedLaunch is the page's end when its browser did not start: an
// Outcome of the browser's end where it exited or passed ctx's deadline,
// an error otherwise.
func (w *Warm) failedLaunch(ctx context.Context, begun time.Time, err error) (proc.Outcome, error) {
	switch {
	case w.inst == nil:
		return proc.Outcome{}, err
	case errors.Is(err, errBrowserExited):
		return w.failedStart(begun, "spawnbench: "+w.b.Name()+" exited before the page did")
	case ctx.Err() != nil:
		out, serr := w.failedStart(begun, "")
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.TimedOut = true
			return out, serr
		}
		return out, errors.Join(ctx.Err(), serr)
	}
	_, serr := w.stopBrowser()
	return proc.Outcome{}, errors.Join(fmt.Errorf("start %s: %w", w.b.Name(), err), serr)
}

// failedStart stops a browser that did not get as far as taking a page,
// and makes the page's Outcome of its end: its exit status and log, and,
// when given, a line that says what happened.
func (w *Warm) failedStart(begun time.Time, why string) (proc.Outcome, error) {
	inst := w.inst
	browserOut, err := w.stopBrowser()
	out := proc.Outcome{Wall: time.Since(begun), ExitCode: browserOut.ExitCode, Signal: browserOut.Signal}
	chargeBrowser(&out, browserOut)
	if why != "" {
		if out.ExitCode == 0 {
			out.ExitCode = 1
		}
		out.Stderr = appendLine(out.Stderr, why)
	}
	out.Stderr = appendLine(out.Stderr, "--- "+w.b.Name()+"'s log ---")
	out.Stderr = append(out.Stderr, inst.log(browserOut)...)
	return out, err
}

// isClosed says whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// span is the machine's and spawnbench's CPU time at the start of a page
// in a warm browser, whose tree proc does not account for page by page.
type span struct {
	busy, steal, self int64
	ok                bool
}

func beginSpan() span {
	var s span
	var ok1, ok2 bool
	s.busy, s.steal, ok1 = proc.MachineCPU()
	s.self, ok2 = proc.SelfCPU()
	s.ok = ok1 && ok2
	return s
}

// pageCost is a page's share of a warm browser: nil where unknown.
type pageCost struct {
	userNS, sysNS, othersNS, stealNS *int64
}

// end charges the page what the browser's processes used between before
// and now (a process new since before, the page's renderer among them,
// all it used), and the machine's other work over the span: everything
// but the browser's tree and spawnbench itself, as proc does for a
// process. /proc counts in ticks of 10 ms on common kernels, so a page's
// figures are coarse; their sums over many pages are not.
func (s span) end(before, now procTable) pageCost {
	tick := proc.ClockTickNS()
	busy, steal, ok1 := proc.MachineCPU()
	self, ok2 := proc.SelfCPU()
	if tick == 0 {
		return pageCost{}
	}
	var user, sys uint64
	for pid, p := range now {
		u, st := p.utime, p.stime
		if q, ok := before[pid]; ok && q.start == p.start {
			u, st = u-min(u, q.utime), st-min(st, q.stime)
		}
		user, sys = user+u, sys+st
	}
	c := pageCost{userNS: ptr(int64(user) * tick), sysNS: ptr(int64(sys) * tick)}
	if s.ok && ok1 && ok2 {
		c.stealNS = ptr(steal - s.steal)
		// Not floored at 0, for the reason proc gives.
		c.othersNS = ptr(busy - s.busy - *c.userNS - *c.sysNS - (self - s.self))
	}
	return c
}

func ptr[T any](v T) *T { return &v }
