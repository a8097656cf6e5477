package env

import (
	"context"

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
}

type chromiumSettings struct {
	Chromium      string   `json:"chromium"`
	ChromiumFlags []string `json:"chromium_flags"`
}

type firefoxSettings struct {
	Firefox      string   `json:"firefox"`
	FirefoxFlags []string `json:"firefox_flags"`
}

func init() {
	RegisterHost("chromium", "headless Chromium (a fresh browser per repetition)", FormPage,
		// Chromium coarsens performance.now() to 5 µs steps.
		HostFacts{Family: "JS hosts", ClockStepNS: 5_000, Install: "apt-get install -y chromium"},
		func(cfg chromiumSettings) Host {
			return browserHost{browser.Chromium{Command: cfg.Chromium, Flags: cfg.ChromiumFlags}, "apt-get install -y chromium"}
		})
	RegisterHost("firefox", "headless Firefox ESR (a fresh browser on a fresh profile per repetition)", FormPage,
		// Firefox rounds timeOrigin and now() to 20 µs steps, separately,
		// so a worker's reading can land one step after its parent's.
		HostFacts{Family: "JS hosts", ClockStepNS: 20_000, Install: "apt-get install -y firefox-esr"},
		func(cfg firefoxSettings) Host {
			return browserHost{browser.Firefox{Command: cfg.Firefox, Flags: cfg.FirefoxFlags}, "apt-get install -y firefox-esr"}
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
	return browser.Run(ctx, browser.Page{
		Dir: r.BuildDir, Path: e.File, Argv: e.Args, CPUs: r.CPUs, Browser: h.b, Stdout: r.Stdout,
	})
}
