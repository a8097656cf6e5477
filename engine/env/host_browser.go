package env

import (
	"context"
	"fmt"
	"time"

	"spawnbench/engine/browser"
	"spawnbench/engine/proc"
)

// The browsers: a fresh browser per repetition opens a payload's page
// from the run directory, served from a loopback server and cross-origin
// isolated (engine/browser). A fresh browser is what a fresh `node`
// process is, a cold runtime, so the hosts compare like for like; it
// costs about a second a repetition.
type browserHost struct {
	b       browser.Browser
	install string
	// workerCap is the workers one origin may run at once (0: no cap
	// spawnbench knows of).
	workerCap int
}

// CappedStall is how long a repetition that needs more live workers than
// its browser allows may run before it is stopped: long enough to finish
// should the cap not bite after all (its numbers are then kept as any),
// short against the timeout it would otherwise sit out.
var CappedStall = 20 * time.Second

type chromiumSettings struct {
	Chromium      string   `json:"chromium"`
	ChromiumFlags []string `json:"chromium_flags"`
}

type firefoxSettings struct {
	Firefox      string         `json:"firefox"`
	FirefoxFlags []string       `json:"firefox_flags"`
	FirefoxPrefs map[string]any `json:"firefox_prefs"`
}

func init() {
	RegisterHost("chromium", "headless Chromium (a fresh browser per repetition)", FormPage,
		// Chromium coarsens performance.now() to 5 µs steps, read as a
		// double of its own step.
		HostFacts{Family: "JS hosts", ClockStepNS: 5_000 + jsDoubleStepNS, Install: "apt-get install -y chromium"},
		func(cfg chromiumSettings) Host {
			return browserHost{b: browser.Chromium{Command: cfg.Chromium, Flags: cfg.ChromiumFlags}, install: "apt-get install -y chromium"}
		})
	RegisterHost("firefox", "headless Firefox ESR (a fresh browser on a fresh profile per repetition)", FormPage,
		// Firefox rounds timeOrigin and now() to 20 µs steps, separately,
		// so a worker's reading can land one step after its parent's, and
		// the double's step on top (2 spawns in 4000 in the study).
		HostFacts{Family: "JS hosts", ClockStepNS: 20_000 + jsDoubleStepNS, Install: "apt-get install -y firefox-esr"},
		func(cfg firefoxSettings) Host {
			ff := browser.Firefox{Command: cfg.Firefox, Flags: cfg.FirefoxFlags, Prefs: cfg.FirefoxPrefs}
			return browserHost{b: ff, install: "apt-get install -y firefox-esr", workerCap: ff.WorkersPerOrigin()}
		})
}

func (h browserHost) Toolchain(ctx context.Context) Toolchain {
	install := h.install
	if why := proc.Missing(h.b.Executable()); why != "" {
		return Toolchain{Install: install, Problem: "browser " + why}
	}
	v, err := h.b.Version(ctx)
	if err != nil {
		return Toolchain{Install: install, Problem: err.Error()}
	}
	return Toolchain{Present: true, Version: v, Install: install}
}

func (h browserHost) Run(ctx context.Context, e Entry, r Repetition) (Outcome, error) {
	page := browser.Page{Dir: r.BuildDir, Path: e.File, Argv: e.Args, CPUs: r.CPUs, Browser: h.b, Stdout: r.Stdout}
	if h.workerCap == 0 || e.LiveWorkers <= h.workerCap {
		return browser.Run(ctx, page)
	}
	// The page needs more workers alive at once than the browser lets an
	// origin run: past the cap a new worker waits for one to end, and
	// none ends before the page does. Give it a short while (it is kept
	// if it finishes), then say why it stalled.
	sctx, cancel := context.WithTimeout(ctx, CappedStall)
	defer cancel()
	out, err := browser.Run(sctx, page)
	if err == nil && out.TimedOut && ctx.Err() == nil {
		out.Limit = fmt.Sprintf("needs %d workers alive at once, but %s lets an origin run %d (dom.workers.maxPerDomain), so the page stalled; stopped after %s. "+
			"Measure it with a variant that raises the cap, e.g. firefox_prefs: {\"dom.workers.maxPerDomain\": %d}",
			e.LiveWorkers, h.b.Name(), h.workerCap, CappedStall, 2*e.LiveWorkers)
	}
	return out, err
}
