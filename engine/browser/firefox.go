package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
	return versionLine(ctx, f.Executable())
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
	bidi    *bidi
	lost    chan struct{}
}

// launch writes the profile's preferences and starts Firefox. A cold
// start opens its page from the command line, with no remote agent, as
// Firefox runs when a person starts it on a page; a warm one starts the
// remote agent on a port the kernel picks and opens a WebDriver BiDi
// session, to open each page in a user context of its own.
func (f Firefox) launch(ctx, life context.Context, cpus []int, profile string, env []string, first *firstPage) (instance, bool, error) {
	if err := f.writePrefs(profile); err != nil {
		return nil, false, err
	}
	argv := []string{f.Executable(), "--headless", "--no-remote", "--profile", profile}
	if first == nil {
		argv = append(argv, "--remote-debugging-port", "0", "--remote-allow-origins", bidiOrigin)
	}
	argv = append(argv, f.Flags...)
	if first != nil {
		argv = append(argv, first.url)
		first.rec.markStarted()
	}
	stdout := &tail{max: 64 << 10}
	started, err := proc.Start(life, proc.Command{Argv: argv, Env: append(env, firefoxEnv(profile)...), CPUs: cpus, Stdout: stdout})
	if err != nil {
		return nil, false, fmt.Errorf("start firefox: %w", err)
	}
	ff := &firefox{proc: started, profile: profile, stdout: stdout, lost: make(chan struct{})}
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
	ff.bidi, err = dialBiDi(ctx, url)
	if err != nil {
		if isClosed(ff.exited()) {
			return ff, false, errBrowserExited
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

// writePrefs writes the profile's user.js.
func (f Firefox) writePrefs(profile string) error {
	var b strings.Builder
	b.WriteString("// Written by spawnbench (engine/browser.FirefoxPrefs).\n")
	for _, prefs := range []map[string]any{FirefoxPrefs, f.Prefs} {
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
