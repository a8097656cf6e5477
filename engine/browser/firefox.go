package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/proc"
)

// DefaultFirefox is the Firefox command when none is named: Debian's
// firefox-esr package.
const DefaultFirefox = "firefox-esr"

// Firefox is Debian's Firefox ESR (or another Firefox build), headless,
// driven over WebDriver BiDi: each page in a user context (a container)
// of its own (browser.createUserContext), removed when the page has
// ended.
type Firefox struct {
	// Command is the browser command; empty means DefaultFirefox.
	Command string
	// Flags are added to the command line after spawnbench's own.
	Flags []string
	// Prefs are more user.js preferences, after FirefoxPrefs.
	Prefs map[string]any
	// Under, when set, gives the command line the browser is started
	// under (a toolchain root's bwrap, engine/env/root.go), or why it
	// cannot be; Command is then looked up inside it.
	Under func() ([]string, error)
}

func (f Firefox) Name() string { return "firefox" }

// FirefoxWorkersPerOrigin is Firefox's own dom.workers.maxPerDomain: the
// workers one origin may run at once. A worker started past it waits for
// one to end.
const FirefoxWorkersPerOrigin = 512

// WorkersPerOrigin is the cap this Firefox runs under: its Prefs' value
// of dom.workers.maxPerDomain, or Firefox's own.
func (f Firefox) WorkersPerOrigin() int {
	switch v := f.Prefs["dom.workers.maxPerDomain"].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return FirefoxWorkersPerOrigin
}

// Executable is the browser command that is started.
func (f Firefox) Executable() string {
	if f.Command == "" {
		return DefaultFirefox
	}
	return f.Command
}

// Version returns the browser's version line, e.g. "Mozilla Firefox
// 153.8.0esr".
func (f Firefox) Version(ctx context.Context) (string, error) {
	if f.Under == nil {
		return versionLine(ctx, f.Executable())
	}
	prefix, err := f.Under()
	if err != nil {
		return "", err
	}
	out, err := proc.ToolFact(ctx, append(prefix, f.Executable(), "--version")...)
	if err != nil {
		return "", err
	}
	return lastLine(out), nil
}

// FirefoxPrefs are the preferences every profile gets (in user.js). This
// machine reaches no hosts, and a browser that keeps trying them spends
// the benchmark's CPU doing it, so everything that phones home is off:
// updates, telemetry, Safe Browsing lists, remote settings, captive-portal
// and connectivity checks, add-on and search updates, media plugin
// downloads, prefetching and speculative connections. The rest keeps it
// quiet and at full speed: no first-run or default-browser pages, no
// session restore, no slow-script dialog, no throttling of a page nobody
// looks at; and console messages, which workers can only write there,
// go to the browser's standard output so a dying page's last words are
// in its log.
//
// One preference is about the clock, the benchmark's instrument. Firefox
// coarsens performance.now() and timeOrigin (20 µs steps in a
// cross-origin-isolated page here; turning privacy.reduceTimerPrecision
// off did not change that) and by default jitters the rounding edge
// differently in a page and in each of its workers, so readings of one
// instant in two workers can land a step apart. The jitter is turned off:
// it changes what a page can measure, not what spawning a worker costs.
// A step of disagreement remains, since timeOrigin and now() are rounded
// apart: emscripten-firefox, whose reused workers answer within a few
// steps, still had about 1 spawn in 300 with its first reading a step
// after its parent's join reading in calibrate's coherence check (4 in
// 300 with the jitter on).
var FirefoxPrefs = map[string]any{
	"app.update.auto":                                    false,
	"app.update.enabled":                                 false,
	"app.normandy.enabled":                               false,
	"app.shield.optoutstudies.enabled":                   false,
	"browser.aboutwelcome.enabled":                       false,
	"browser.newtabpage.enabled":                         false,
	"browser.ping-centre.telemetry":                      false,
	"browser.safebrowsing.blockedURIs.enabled":           false,
	"browser.safebrowsing.downloads.enabled":             false,
	"browser.safebrowsing.malware.enabled":               false,
	"browser.safebrowsing.phishing.enabled":              false,
	"browser.safebrowsing.update.enabled":                false,
	"browser.search.update":                              false,
	"browser.sessionstore.resume_from_crash":             false,
	"browser.shell.checkDefaultBrowser":                  false,
	"browser.startup.homepage_override.mstone":           "ignore",
	"browser.startup.page":                               0,
	"browser.tabs.warnOnClose":                           false,
	"browser.dom.window.dump.enabled":                    true,
	"datareporting.healthreport.uploadEnabled":           false,
	"datareporting.policy.dataSubmissionEnabled":         false,
	"devtools.console.stdout.content":                    true,
	"dom.max_chrome_script_run_time":                     0,
	"dom.max_script_run_time":                            0,
	"dom.min_background_timeout_value":                   0,
	"extensions.blocklist.enabled":                       false,
	"extensions.getAddons.cache.enabled":                 false,
	"extensions.update.enabled":                          false,
	"media.gmp-manager.updateEnabled":                    false,
	"network.captive-portal-service.enabled":             false,
	"network.connectivity-service.enabled":               false,
	"network.dns.disablePrefetch":                        true,
	"network.http.speculative-parallel-limit":            0,
	"network.prefetch-next":                              false,
	"services.settings.server":                           "data:,",
	"toolkit.startup.max_resumed_crashes":                -1,
	"toolkit.telemetry.enabled":                          false,
	"toolkit.telemetry.server":                           "data:,",
	"toolkit.telemetry.unified":                          false,
	"browser.newtabpage.activity-stream.feeds.telemetry": false,
}

// firefox is one started Firefox.
type firefox struct {
	proc    *proc.Started
	profile string
	stdout  *tail
	// agent is what the remote agent logged of its connections; nil for
	// a cold start, which has no remote agent.
	agent *agentLog
	bidi  *bidi
	lost  chan struct{}
}

// launch writes the profile's preferences and starts Firefox. A cold
// start opens its page as its home page, with no remote agent, as
// Firefox runs when a person starts it on a page (the page's URL holds
// its secret, so it goes in the profile, not on a command line that any
// local user can read); a warm one starts the remote agent on a port the
// kernel picks, in spawnbench's own network namespace where there is one
// (privatenet.go), opens a WebDriver BiDi session, and checks that it is
// the agent's only client (onlyClient), to open each page in a user
// context of its own.
func (f Firefox) launch(ctx, life context.Context, cpus []int, profile string, env []string, first *firstPage) (instance, bool, error) {
	if err := f.writePrefs(profile, first); err != nil {
		return nil, false, err
	}
	var n *privateNet
	if first == nil {
		n, _ = ownNet() // none: the machine's loopback (Isolation says why)
	}
	argv := []string{f.Executable(), "--headless", "--no-remote", "--profile", profile}
	if first == nil {
		argv = append(argv, "--remote-debugging-port", "0", "--remote-allow-origins", bidiOrigin)
	}
	argv = append(argv, f.Flags...)
	if f.Under != nil {
		prefix, err := f.Under()
		if err != nil {
			return nil, false, fmt.Errorf("start firefox: %w", err)
		}
		argv = append(prefix, argv...)
	}
	var nsFiles []*os.File
	if n != nil {
		argv = append(slices.Clone(n.enter), argv...)
		nsFiles = n.ns
	}
	stdout := &tail{max: 64 << 10}
	var out io.Writer = stdout
	var agent *agentLog
	if first == nil {
		agent = &agentLog{changed: make(chan struct{})}
		out = io.MultiWriter(stdout, agent)
	} else {
		first.rec.markStarted()
	}
	started, err := proc.Start(life, proc.Command{Argv: argv, Env: append(env, firefoxEnv(profile)...), CPUs: cpus, Stdout: out}, nsFiles...)
	if err != nil {
		return nil, false, fmt.Errorf("start firefox: %w", err)
	}
	ff := &firefox{proc: started, profile: profile, stdout: stdout, agent: agent, lost: make(chan struct{})}
	if first != nil {
		go func() {
			<-started.Done()
			close(ff.lost)
		}()
		return ff, true, nil
	}
	url, err := ff.listening(ctx)
	if err != nil {
		return ff, false, err
	}
	dial := dialHere
	if n != nil {
		dial = n.dial
	}
	if testHookBeforeSession != nil {
		testHookBeforeSession(url)
	}
	ff.bidi, err = dialBiDi(ctx, url, dial)
	if err == nil {
		err = ff.onlyClient(ctx, url, dial)
	}
	if err != nil {
		if isClosed(ff.exited()) {
			return ff, false, errBrowserExited
		}
		var refused *bidiError
		if errors.As(err, &refused) && refused.Code == "session not created" {
			err = fmt.Errorf("%w: another local client took the remote agent's one session before spawnbench (the agent logged connections from %s); a browser someone else drives is not used", err, strings.Join(ff.agent.snapshot(), ", "))
		}
		return ff, false, err
	}
	go func() {
		select {
		case <-ff.bidi.gone:
		case <-started.Done():
		}
		close(ff.lost)
	}()
	return ff, false, nil
}

// testHookBeforeSession lets tests reach a warm Firefox's remote agent,
// at url, before spawnbench asks it for a session.
var testHookBeforeSession func(url string)

// onlyClient checks that the remote agent took no connection but
// spawnbench's own before spawnbench's session was made: a client that
// came first may have had a session of its own and driven the browser
// (open file:// pages, say) before ending it. The agent logs each
// connection it takes (agentLog), in order; a second connection of
// spawnbench's own, made once the session is, marks where the log has
// reached the session's making.
func (f *firefox) onlyClient(ctx context.Context, url string, dial dialFunc) error {
	mark, err := touchBiDi(ctx, url, dial)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	peers, err := f.agent.until(wctx, mark, f.proc.Done())
	if err != nil {
		return fmt.Errorf("the remote agent did not log spawnbench's connection from %s (remote.log.level Info), so spawnbench cannot tell who else connected: %w", mark, err)
	}
	var others []string
	own := false
	for _, p := range peers {
		switch p {
		case f.bidi.local:
			own = true
		case mark:
		default:
			others = append(others, p)
		}
	}
	if len(others) > 0 {
		return fmt.Errorf("the remote agent took connections from %s besides spawnbench's own (%s) before spawnbench's session was made: another local client reached it first, and a browser someone else may have driven is not used", strings.Join(others, ", "), f.bidi.local)
	}
	if !own {
		return fmt.Errorf("the remote agent did not log spawnbench's session connection from %s (it logged %s)", f.bidi.local, strings.Join(peers, ", "))
	}
	return nil
}

// agentLog reads Firefox's output as it comes for the remote agent's
// line about each connection it takes, "Perform WebSocket upgrade for
// incoming connection from 127.0.0.1:40312": the only record of who
// connected to it.
type agentLog struct {
	mu      sync.Mutex
	partial []byte
	peers   []string
	// changed is closed, and replaced, when a peer is added.
	changed chan struct{}
}

// agentConnection is the line's mark; the peer's address follows it.
const agentConnection = "\tRemoteAgent\tINFO\tPerform WebSocket upgrade for incoming connection from "

func (a *agentLog) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.partial = append(a.partial, p...)
	for {
		i := bytes.IndexByte(a.partial, '\n')
		if i < 0 {
			break
		}
		line := string(a.partial[:i])
		a.partial = a.partial[i+1:]
		if _, peer, ok := strings.Cut(line, agentConnection); ok {
			a.peers = append(a.peers, strings.TrimSpace(peer))
			close(a.changed)
			a.changed = make(chan struct{})
		}
	}
	if len(a.partial) > 64<<10 {
		a.partial = nil // a page's endless line: no line of the agent's
	}
	a.partial = slices.Clip(a.partial)
	return len(p), nil
}

// snapshot is the peers logged so far.
func (a *agentLog) snapshot() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.peers)
}

// until waits until peer is logged and returns the peers logged up to it.
func (a *agentLog) until(ctx context.Context, peer string, exited <-chan struct{}) ([]string, error) {
	for {
		a.mu.Lock()
		if i := slices.Index(a.peers, peer); i >= 0 {
			out := slices.Clone(a.peers[:i+1])
			a.mu.Unlock()
			return out, nil
		}
		changed := a.changed
		a.mu.Unlock()
		select {
		case <-changed:
		case <-exited:
			return nil, errBrowserExited
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// pageListener: a warm Firefox's pages are served in its network, the
// namespace of spawnbench's own where there is one; a cold Firefox, with
// no remote agent, is on the machine's loopback.
func (f Firefox) pageListener(cold bool) listenFunc {
	if cold {
		return nil
	}
	if n, err := ownNet(); err == nil {
		return n.listen
	}
	return nil
}

// listening waits until Firefox's remote agent listens: it then writes
// its address to WebDriverBiDiServer.json in the profile.
func (f *firefox) listening(ctx context.Context) (string, error) {
	file := filepath.Join(f.profile, "WebDriverBiDiServer.json")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var at struct {
			Host string `json:"ws_host"`
			Port int    `json:"ws_port"`
		}
		if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &at) == nil && at.Port > 0 {
			return "ws://" + at.Host + ":" + strconv.Itoa(at.Port), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-f.proc.Done():
			return "", errBrowserExited
		case <-tick.C:
		}
	}
}

// firefoxTab is one page's user context.
type firefoxTab struct {
	f           *firefox
	userContext string
}

// open makes a user context and a tab in it, and opens the page there.
func (f *firefox) open(ctx context.Context, pageURL string, rec *recorder) (tab, error) {
	var uc struct {
		UserContext string `json:"userContext"`
	}
	if err := f.bidi.call(ctx, "browser.createUserContext", map[string]any{}, &uc); err != nil {
		return nil, err
	}
	t := &firefoxTab{f: f, userContext: uc.UserContext}
	var bc struct {
		Context string `json:"context"`
	}
	if err := f.bidi.call(ctx, "browsingContext.create", map[string]any{"type": "tab", "userContext": uc.UserContext}, &bc); err != nil {
		return nil, err
	}
	// The page's own reports say when it has ended; the load is no news.
	if err := f.bidi.call(ctx, "browsingContext.navigate", map[string]any{"context": bc.Context, "url": pageURL, "wait": "none"}, nil); err != nil {
		return nil, err
	}
	rec.markStarted()
	return t, nil
}

// close removes the user context, and with it its tab and the process
// that ran it.
func (t *firefoxTab) close(ctx context.Context) error {
	return t.f.bidi.call(ctx, "browser.removeUserContext", map[string]any{"userContext": t.userContext}, nil)
}

// firefoxRenderer is the name Firefox gives a content process once it
// runs a site of its own (a cross-origin-isolated one too): until then a
// preallocated process is "Web Content".
const firefoxRenderer = "Isolated Web Co"

// renderer is the newest content process that runs a site now and did not
// at before: Firefox names it when it takes the page, and a new user
// context's page cannot go to an older one.
func (f *firefox) renderer(_ context.Context, before, now procTable) int {
	var pids []int
	for pid, p := range now {
		if p.comm == firefoxRenderer {
			pids = append(pids, pid)
		}
	}
	return newest(pids, before, now)
}

func (f *firefox) gone() <-chan struct{} { return f.lost }

func (f *firefox) exited() <-chan struct{} { return f.proc.Done() }

func (f *firefox) pid() int { return f.proc.Pid }

func (f *firefox) stop() (proc.Outcome, error) {
	out, err := f.proc.Stop()
	if f.bidi != nil {
		_ = f.bidi.close() // the browser is gone: so is the connection
	}
	if kerr := killLeftovers(f.proc.Pid, f.profile); err == nil {
		err = kerr
	}
	return out, err
}

// log is the tail of Firefox's output: console messages (workers' too)
// and its own complaints are there, not in the page's.
func (f *firefox) log(out proc.Outcome) []byte { return logTail(f.stdout.Bytes(), out.Stderr) }

// firefoxEnv keeps the rest of what Firefox writes inside the profile,
// and its crash reporter off (it would leave the process group).
func firefoxEnv(profile string) []string {
	return []string{
		"HOME=" + profile,
		"MOZ_CRASHREPORTER_DISABLE=1",
		"MOZ_DISABLE_AUTO_SAFE_MODE=1",
	}
}

// writePrefs writes the profile's user.js: FirefoxPrefs, the Firefox's
// own, and last, so that they hold, what spawnbench's checks rely on:
// the remote agent's log of its connections (onlyClient), or a cold
// start's page as its home page.
func (f Firefox) writePrefs(profile string, first *firstPage) error {
	held := map[string]any{"remote.log.level": "Info"}
	if first != nil {
		held = map[string]any{"browser.startup.page": 1, "browser.startup.homepage": first.url}
	}
	var b strings.Builder
	b.WriteString("// Written by spawnbench (engine/browser.FirefoxPrefs).\n")
	for _, prefs := range []map[string]any{FirefoxPrefs, f.Prefs, held} {
		names := make([]string, 0, len(prefs))
		for name := range prefs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			v, err := json.Marshal(prefs[name])
			if err != nil {
				return fmt.Errorf("firefox preference %s: %w", name, err)
			}
			fmt.Fprintf(&b, "user_pref(%q, %s);\n", name, v)
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(profile, "user.js"), []byte(b.String())); err != nil {
		return fmt.Errorf("write the profile's user.js: %w", err)
	}
	return nil
}
