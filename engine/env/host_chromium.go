package env

import (
	"spawnbench/engine/browser"
	"spawnbench/engine/hostfacts"
)

// chromium: headless Chromium opens a payload's page from the run
// directory (engine/browser). By default one browser serves every
// repetition of the environment in a run, each repetition in a fresh
// browser context on a new origin, so a fresh renderer process and
// nothing of the repetitions before: what a page costs in a browser that
// is already open. browser_start: "cold" starts a fresh browser on a
// fresh profile per repetition instead, what a fresh `node` process is,
// about a second more a repetition.
type chromiumSettings struct {
	Chromium      string   `json:"chromium"`
	ChromiumFlags []string `json:"chromium_flags"`
	BrowserStart  string   `json:"browser_start"`
}

func init() {
	RegisterHost("chromium", "headless Chromium (one warm browser, a fresh context and renderer per repetition; or cold: a fresh browser per repetition)", FormPage,
		// Chromium coarsens performance.now() to 5 µs steps, read as a
		// double of its own step.
		HostFacts{Family: hostfacts.JSHosts, ClockStepNS: hostfacts.ChromiumCoarseStepNS + hostfacts.JSDoubleStepNS, Install: "apt-get install -y chromium"},
		func(cfg chromiumSettings) Host {
			return newPageHost(browser.Chromium{Command: cfg.Chromium, Flags: cfg.ChromiumFlags}, cfg.BrowserStart, "apt-get install -y chromium", 0)
		})
}
