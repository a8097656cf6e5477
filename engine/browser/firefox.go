package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/proc"
)

// DefaultFirefox is the Firefox command when none is named: Debian's
// firefox-esr package.
const DefaultFirefox = "firefox-esr"

// Firefox is Debian's Firefox ESR (or another Firefox build), headless.
// Firefox has no DevTools bindings (it speaks WebDriver BiDi, not
// Chrome's protocol), so the page reports to the page server itself
// (reporter.js with its POST sink), one synchronous POST a line.
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

func (f Firefox) postsReports() bool { return true }

// firefox is one started Firefox.
type firefox struct {
	proc    *proc.Started
	profile string
}

// open writes the profile's preferences and starts Firefox on the page.
func (f Firefox) open(ctx context.Context, p Page, base, profile string, rec *recorder) (session, error) {
	if err := f.writePrefs(profile); err != nil {
		return nil, err
	}
	pageURL := base + strings.TrimPrefix((&url.URL{Path: p.Path}).EscapedPath(), "/")
	cmd := append([]string{f.Executable(), "--headless", "--no-remote", "--profile", profile}, f.Flags...)
	cmd = append(cmd, pageURL)
	rec.markStarted()
	started, err := proc.Start(ctx, proc.Command{Argv: cmd, Env: firefoxEnv(profile), CPUs: p.CPUs})
	if err != nil {
		return nil, fmt.Errorf("start firefox: %w", err)
	}
	return &firefox{proc: started, profile: profile}, nil
}

func (f *firefox) wait(ctx context.Context, ended <-chan struct{}) error {
	select {
	case <-ended:
	case <-ctx.Done():
	case <-f.proc.Done():
		// Posts already under way still count.
		select {
		case <-ended:
		case <-time.After(100 * time.Millisecond):
			return errBrowserExited
		}
	}
	return nil
}

func (f *firefox) pid() int { return f.proc.Pid }

func (f *firefox) stop() (proc.Outcome, error) {
	out, err := f.proc.Stop()
	if kerr := killLeftovers(f.proc.Pid, f.profile); err == nil {
		err = kerr
	}
	return out, err
}

// log is the tail of Firefox's output: console messages (workers' too)
// and its own complaints are there, not in the page's.
func (f *firefox) log(out proc.Outcome) []byte { return logTail(out.Stdout, out.Stderr) }

// firefoxEnv keeps everything Firefox writes inside the profile, and its
// crash reporter off (it would leave the process group).
func firefoxEnv(profile string) []string {
	return []string{
		"HOME=" + profile,
		"XDG_CONFIG_HOME=" + filepath.Join(profile, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(profile, "cache"),
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
