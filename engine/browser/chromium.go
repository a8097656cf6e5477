package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
// running at full speed though nobody looks at it. The last two send
// console messages, which workers can only write there, to stderr, and
// speak DevTools over file descriptors 3 and 4 rather than a TCP port.
func Flags() []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-default-browser-check", "--disable-extensions", "--mute-audio",

		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		"--disable-backgrounding-occluded-windows",

		"--enable-logging=stderr", "--v=0",
		"--remote-debugging-pipe",
	}
}

// Chromium is Debian's Chromium (or another Chromium build), headless,
// driven over the DevTools protocol.
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
	out, err := proc.Output(ctx, "", path, "--version")
	if err != nil {
		return "", err
	}
	// Debian's wrapper script can print shell noise before the version.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
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
	// The page, where it is served, and its recorder.
	page Page
	base string
	rec  *recorder
}

// start starts a browser for p with profile as its user data directory.
// ctx bounds the browser's life.
func (c Chromium) start(ctx context.Context, p Page, profile string) (*chromium, error) {
	exe := c.Executable()
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
	argv := append([]string{exe}, Flags()...)
	argv = append(argv, c.Flags...)
	argv = append(argv, "--user-data-dir="+profile, "about:blank")
	// Everything Chromium writes goes inside the profile, the crash
	// handlers' database too, so leftovers.go can find those handlers.
	environ := []string{
		"XDG_CONFIG_HOME=" + filepath.Join(profile, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(profile, "cache"),
	}
	started, err := proc.Start(ctx, proc.Command{Argv: argv, Env: environ, CPUs: p.CPUs}, cmdR, ansW)
	// The browser has its own copies of its ends now.
	cmdR.Close()
	ansW.Close()
	if err != nil {
		cmdW.Close()
		ansR.Close()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	return &chromium{proc: started, profile: profile, toBrowser: cmdW, fromBrowser: ansR}, nil
}

func (c Chromium) postsReports() bool { return false }

func (c Chromium) open(ctx context.Context, p Page, base, profile string, rec *recorder) (session, error) {
	chrome, err := c.start(ctx, p, profile)
	if err != nil {
		return nil, err
	}
	chrome.page, chrome.base, chrome.rec = p, base, rec
	return chrome, nil
}

// wait drives the page over the DevTools protocol; its reports come by
// the binding, not through ended.
func (c *chromium) wait(ctx context.Context, _ <-chan struct{}) error {
	return drive(ctx, c, c.base, c.page, c.rec)
}

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
	c.toBrowser.Close()
	c.fromBrowser.Close()
	if kerr := killLeftovers(c.proc.Pid, c.profile); err == nil {
		err = kerr
	}
	return out, err
}
