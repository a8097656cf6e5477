// Package intruder plays another local user against a spawnbench run, for
// the tests that check that nobody else on the machine can forge, end or
// steer a measurement. As that user (nobody), it reads the machine's
// loopback listeners from /proc/net/tcp, as any user can, posts forged
// page reports to them (an exit status, a spawn line) and asks them for
// WebDriver BiDi sessions, as a hostile neighbour on a shared machine
// would.
//
// It attacks only what the run owns: a watcher of the run's own user
// (Watch) lists the sockets of the run's processes, and the intruder
// leaves every other listener alone, so that it cannot disturb the other
// programs on a shared machine.
//
// The intruder is the test binary itself, copied where nobody may run it
// and started as nobody (Command); importing this package makes a test
// binary one (init), once its TestMain calls reexec.Dispatch.
package intruder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"

	"golang.org/x/net/websocket"
)

// The intruder's helper roles (see reexec), one a mode: Poll and
// TakeSession.
const (
	pollRole    = "test-intruder-poll"
	sessionRole = "test-intruder-session"
)

// argVar carries the mode's argument: the watcher's directory (poll), or
// the remote agent's ws:// URL and what to do with a session (session).
const argVar = "SPAWNBENCH_TEST_INTRUDER_ARG"

func init() {
	reexec.Register(pollRole, func() int {
		_ = json.NewEncoder(os.Stdout).Encode(Poll(os.Getenv(argVar), os.Stdin))
		return 0
	})
	reexec.Register(sessionRole, func() int {
		url, then, _ := strings.Cut(os.Getenv(argVar), " ")
		TakeSession(url, then, os.Stdin, os.Stdout)
		return 0
	})
}

// Nobody is the user the intruder runs as.
const Nobody = 65534

// Skip says why the intruder cannot be run here ("" when it can): only
// root can run a process as another user.
func Skip() string {
	if os.Getuid() != 0 {
		return fmt.Sprintf("running as uid %d, not root: cannot run an intruder as another user", os.Getuid())
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		return "no /proc/net/tcp: " + err.Error()
	}
	return ""
}

// Dir makes a directory for the intruder: its copy of the binary, the
// watcher's files. The caller removes it.
func Dir() (string, error) {
	// Not in a test's own temporary directory, which only its user may
	// enter.
	dir, err := os.MkdirTemp("", "spawnbench-intruder-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Command is the intruder in mode with arg, as nobody: a copy of this
// (test) binary in dir, a directory of Dir's. Its
// standard input is the caller's to close when the intruder is to stop;
// its standard output is its report, as JSON.
func Command(dir, mode, arg string) (*exec.Cmd, error) {
	role, err := reexec.Env(map[string]string{"poll": pollRole, "session": sessionRole}[mode])
	if err != nil {
		return nil, fmt.Errorf("intruder mode %q: %w", mode, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	copied := filepath.Join(dir, "intruder")
	if _, err := os.Stat(copied); err != nil {
		if err := fulltest.CopyExecutable(self, copied); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(copied, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), role, argVar+"="+arg, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	return cmd, nil
}

// Attacks is what the intruder did and got.
type Attacks struct {
	// Listeners counts the loopback listeners of the run that the
	// intruder saw; Others those it saw and left alone (not the run's).
	Listeners, Others int
	// Posts counts the forged reports posted; Accepted those answered
	// 2xx, Refused those answered 403.
	Posts, Accepted, Refused int
	// SessionTries counts WebDriver BiDi session tries; Sessions those
	// that got a session, SessionRefused those whose WebSocket handshake
	// was answered with an HTTP error (a page server's 403).
	SessionTries, Sessions, SessionRefused int
	// Agents counts the run's remote agents the watcher found, and
	// AgentsSeen those the intruder saw among the machine's listeners.
	Agents, AgentsSeen int
	// Notes are the answers to the intruder's requests that were neither
	// 2xx nor 403 (for the test's message), at most a few.
	Notes []string
}

func (a *Attacks) note(s string) {
	if len(a.Notes) < 20 {
		a.Notes = append(a.Notes, s)
	}
}

// Files of the watcher's directory.
const (
	oursFile   = "ours"   // the run's socket inodes, one a line
	agentsFile = "agents" // the run's remote agents' ports, one a line
)

// Watch lists, every pollEvery until ctx ends, the sockets of
// pid's process tree (the run) and the ports of the remote agents its
// Firefoxes write in their profiles, into files in dir that the intruder
// reads. It runs as the run's user, who alone may read the run's /proc.
func Watch(ctx context.Context, pid int, dir string) {
	for {
		var inodes []string
		var agents []string
		for _, p := range tree(pid) {
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p))
			for _, fd := range fds {
				l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p, fd.Name()))
				if in, ok := strings.CutPrefix(l, "socket:["); ok {
					inodes = append(inodes, strings.TrimSuffix(in, "]"))
				}
			}
			if port := agentPort(p); port != "" {
				agents = append(agents, port)
			}
		}
		writeList(filepath.Join(dir, oursFile), inodes)
		writeList(filepath.Join(dir, agentsFile), agents)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pollEvery):
		}
	}
}

// pollEvery is how often the watcher lists the run's sockets and the
// intruder the machine's listeners: a page's server lives for the
// page's load and run, hundreds of milliseconds or more, so each is found
// and attacked well before it ends. Each listing costs milliseconds of
// a CPU (the kernel walks its whole socket table for /proc/net/tcp): at
// 2 and 5 ms the two took about 10 CPU-seconds of a 13-second run.
const pollEvery = 20 * time.Millisecond

// tree is pid and its descendants, from one pass over /proc.
func tree(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		rest := b[bytes.LastIndexByte(b, ')')+1:]
		if f := strings.Fields(string(rest)); len(f) > 2 {
			pp, _ := strconv.Atoi(f[1])
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// agentPort is the port of the remote agent of Firefox process p, from
// WebDriverBiDiServer.json in the profile its command line names; "".
func agentPort(p int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
	if err != nil || !bytes.Contains(b, []byte("\x00--remote-debugging-port\x00")) {
		return ""
	}
	args := strings.Split(string(b), "\x00")
	i := slices.Index(args, "--profile")
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	var at struct {
		Port int `json:"ws_port"`
	}
	j, err := os.ReadFile(filepath.Join(args[i+1], "WebDriverBiDiServer.json"))
	if err != nil || json.Unmarshal(j, &at) != nil || at.Port == 0 {
		return ""
	}
	return strconv.Itoa(at.Port)
}

func writeList(path string, lines []string) {
	tmp := path + ".new"
	if os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644) == nil {
		_ = os.Rename(tmp, path)
	}
}

func readList(path string) map[string]bool {
	b, _ := os.ReadFile(path)
	out := map[string]bool{}
	for _, l := range strings.Fields(string(b)) {
		out[l] = true
	}
	return out
}

// listener is one listening TCP socket of /proc/net/tcp or tcp6.
type listener struct {
	addr  string // host:port, to connect to
	port  string
	inode string
	v6    bool
}

// listeners reads the machine's listening TCP sockets (those of this
// process's network namespace), as any user can.
func listeners() []listener {
	var out []listener
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" {
				continue // not LISTEN (or the header)
			}
			hexIP, hexPort, ok := strings.Cut(fields[1], ":")
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if !ok || err != nil {
				continue
			}
			host, v6 := "127.0.0.1", len(hexIP) != 8
			if !v6 {
				ip, err := strconv.ParseUint(hexIP, 16, 32)
				if err != nil {
					continue
				}
				// Little-endian on the machines spawnbench runs on.
				host = fmt.Sprintf("%d.%d.%d.%d", ip&0xff, ip>>8&0xff, ip>>16&0xff, ip>>24)
				if ip&0xff != 127 && ip != 0 {
					continue // not on loopback
				}
				if ip == 0 {
					host = "127.0.0.1"
				}
			}
			p := strconv.FormatUint(port, 10)
			out = append(out, listener{addr: net.JoinHostPort(host, p), port: p, inode: fields[9], v6: v6})
		}
		f.Close()
	}
	return out
}

// Poll attacks every loopback listener of the run (Watch's dir) that
// appears, until stop reads its end: it posts an exit status and a spawn
// line to the listener's /__spawnbench/report and asks it for a WebDriver
// BiDi session; and for every remote agent of the run the watcher names,
// it says whether the machine's listeners show it, and if they do,
// attacks it too.
func Poll(dir string, stop io.Reader) Attacks {
	var a Attacks
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stop)
		close(done)
	}()
	attacked := map[string]bool{} // inode
	others := map[string]bool{}
	agents := map[string]bool{}
	seenAgents := map[string]bool{}
	for {
		ours := readList(filepath.Join(dir, oursFile))
		ls := listeners()
		byPort := map[string]listener{}
		for _, l := range ls {
			byPort[l.port] = l
			switch {
			case attacked[l.inode] || l.v6:
			case !ours[l.inode]:
				if !others[l.inode] {
					others[l.inode] = true
					a.Others++
				}
			default:
				attacked[l.inode] = true
				a.Listeners++
				attack(&a, l.addr)
			}
		}
		for port := range readList(filepath.Join(dir, agentsFile)) {
			if !agents[port] {
				agents[port] = true
				a.Agents++
			}
			if l, ok := byPort[port]; ok && ours[l.inode] && !seenAgents[port] {
				seenAgents[port] = true
				a.AgentsSeen++
				// Attacked above, with the other listeners of the run.
			}
		}
		select {
		case <-done:
			return a
		case <-time.After(pollEvery):
		}
	}
}

// attack posts forged reports to addr and asks it for a session.
func attack(a *Attacks, addr string) {
	client := &http.Client{Timeout: 10 * time.Second}
	for _, body := range []string{"x77", "o1 1 2", "e forged"} {
		for _, path := range []string{"/__spawnbench/report", "/AAAAAAAAAAAAAAAAAAAAAAAAAA/__spawnbench/report"} {
			a.Posts++
			res, err := client.Post("http://"+addr+path, "text/plain;charset=utf-8", strings.NewReader(body))
			if err != nil {
				a.note(fmt.Sprintf("POST %s%s: %v", addr, path, err))
				continue
			}
			res.Body.Close()
			switch {
			case res.StatusCode/100 == 2:
				a.Accepted++
			case res.StatusCode == http.StatusForbidden:
				a.Refused++
			default:
				a.note(fmt.Sprintf("POST %s%s: %s", addr, path, res.Status))
			}
		}
	}
	a.SessionTries++
	got, err := newSession("ws://"+addr, func(ws *websocket.Conn) {})
	var dialErr *websocket.DialError
	switch {
	case errors.As(err, &dialErr) && dialErr.Err == websocket.ErrBadStatus:
		a.SessionRefused++
	case err != nil:
		a.note(fmt.Sprintf("session.new at %s: %v", addr, err))
	}
	if got {
		a.Sessions++
	}
}

// Session is what TakeSession got.
type Session struct {
	Got   bool
	Error string
}

// TakeSession asks the remote agent at url for a WebDriver BiDi session
// and writes what it got to out, as JSON; with a session, then says what
// to do: "end" ends it before saying so, "hold" says so and keeps it
// until stop reads its end.
func TakeSession(url, then string, stop io.Reader, out io.Writer) {
	say := func(s Session) { _ = json.NewEncoder(out).Encode(s) }
	got, err := newSession(url, func(ws *websocket.Conn) {
		switch then {
		case "end":
			_ = websocket.JSON.Send(ws, map[string]any{"id": 2, "method": "session.end", "params": map[string]any{}})
			var answer map[string]any
			_ = websocket.JSON.Receive(ws, &answer)
		case "hold":
			say(Session{Got: true})
			_, _ = io.Copy(io.Discard, stop)
		}
	})
	switch {
	case err != nil:
		say(Session{Error: err.Error()})
	case then != "hold":
		say(Session{Got: got})
	}
}

// newSession connects to the remote agent at url (ws://host:port) as any
// local client may, with the Origin spawnbench's own client sends, asks
// for a session, and, if it got one, runs with on the connection.
func newSession(url string, with func(*websocket.Conn)) (bool, error) {
	cfg, err := websocket.NewConfig(url+"/session", "http://127.0.0.1")
	if err != nil {
		return false, err
	}
	cfg.Dialer = &net.Dialer{Timeout: 10 * time.Second}
	ws, err := cfg.DialContext(context.Background())
	if err != nil {
		return false, err
	}
	defer ws.Close()
	_ = ws.SetDeadline(time.Now().Add(30 * time.Second))
	if err := websocket.JSON.Send(ws, map[string]any{"id": 1, "method": "session.new", "params": map[string]any{"capabilities": map[string]any{}}}); err != nil {
		return false, err
	}
	var answer struct {
		Type    string `json:"type"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := websocket.JSON.Receive(ws, &answer); err != nil {
		return false, err
	}
	if answer.Type != "success" {
		return false, errors.New(answer.Error + ": " + answer.Message)
	}
	_ = ws.SetDeadline(time.Time{})
	with(ws)
	return true, nil
}

// Run starts cmd, the intruder, and returns a function that stops it and
// decodes its report into v.
func Run(cmd *exec.Cmd, v any) (stop func() error, err error) {
	var in io.WriteCloser
	var out, errOut bytes.Buffer
	if in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the intruder: %w", err)
	}
	return func() error {
		in.Close()
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("the intruder: %w: %s", err, errOut.Bytes())
		}
		if err := json.Unmarshal(out.Bytes(), v); err != nil {
			return fmt.Errorf("the intruder's report %q: %w (stderr %s)", out.Bytes(), err, errOut.Bytes())
		}
		return nil
	}, nil
}
