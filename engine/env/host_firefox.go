package env

import (
	"spawnbench/engine/browser"
	"spawnbench/engine/hostfacts"
)

// firefox: headless Firefox ESR opens a payload's page from the run
// directory (engine/browser), as chromium does: by default one browser
// per environment and run, each repetition in a fresh user context on a
// new origin; browser_start: "cold" starts a fresh browser on a fresh
// profile per repetition.
type firefoxSettings struct {
	Firefox      string         `json:"firefox"`
	FirefoxFlags []string       `json:"firefox_flags"`
	FirefoxPrefs map[string]any `json:"firefox_prefs"`
	Root         string         `json:"root"`
	BrowserStart string         `json:"browser_start"`
}

func init() {
	RegisterHost("firefox", "headless Firefox ESR (one warm browser, a fresh user context and renderer per repetition; or cold: a fresh browser and profile per repetition)", FormPage,
		// Firefox rounds timeOrigin and now() to 20 µs steps, separately,
		// so a worker's reading can land one step after its parent's, and
		// the double's step on top (2 spawns in 4000 in the study).
		HostFacts{Family: hostfacts.JSHosts, ClockStepNS: hostfacts.FirefoxCoarseStepNS + hostfacts.JSDoubleStepNS, Install: "apt-get install -y firefox-esr"},
		func(cfg firefoxSettings) Host {
			ff := browser.Firefox{Command: cfg.Firefox, Flags: cfg.FirefoxFlags, Prefs: cfg.FirefoxPrefs, Under: rootPrefix(cfg.Root)}
			h := newPageHost(ff, cfg.BrowserStart, "apt-get install -y firefox-esr", ff.WorkersPerOrigin())
			h.root = cfg.Root
			return h
		})
}
