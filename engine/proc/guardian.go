package proc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A guardian holds one process tree where no cgroup can be made (an
// ordinary user without a delegated cgroup). It is spawnbench's own
// binary, started between spawnbench and the tree's main process:
//
//   - it is the tree's child subreaper (PR_SET_CHILD_SUBREAPER), so an
//     orphan of the tree, however it left its parent (a double fork,
//     setsid, a cleared environment), becomes the guardian's child and
//     not init's: the tree is exactly the guardian's descendants, and
//     nothing else is;
//   - it reaps every one of them, so their rusage is the tree's, and
//     once the main process ends, or spawnbench asks (a timeout, an
//     interrupt, Stop), it kills every descendant, again and again, until
//     it has no child left, which for a subreaper means no descendant;
//   - it outlives spawnbench: when spawnbench dies, SIGKILL included, its
//     end of the control pipe closes, and the guardian kills the tree
//     before it ends itself.
//
// What is measured stays the tree's: the guardian takes the wall time
// from just before it forks the main process to the moment it reaps it,
// and reports every reaped process's rusage and its own CPU time, which
// spawnbench does not count as other programs' work.
//
// guardianVar, in a process's environment, makes it a guardian; its value
// is "<k>:<token>": k files to pass on as the main process's descriptors
// 3..k+2 (the control pipe and the report pipe follow them), and the
// tree's token, which the guardian gives the main process and does not
// carry itself (a keeper kills what carries a dead spawnbench's tokens,
// and must leave the guardian to kill its own tree).
const guardianVar = "SPAWNBENCH_GUARDIAN"

// guardReport is one line the guardian writes to spawnbench: first
// Started (the main process's pid) or StartError, then, once the tree is
// gone, Done with the rest.
type guardReport struct {
	Started    int    `json:"started,omitempty"`
	StartError string `json:"start_error,omitempty"`
	StartErrno int    `json:"start_errno,omitempty"`

	Done          bool   `json:"done,omitempty"`
	WallNS        int64  `json:"wall_ns,omitempty"`
	Status        uint32 `json:"status"` // the main process's wait status
	EndedByItself bool   `json:"ended_by_itself,omitempty"`
	UserNS        int64  `json:"user_ns,omitempty"`
	SysNS         int64  `json:"sys_ns,omitempty"`
	MaxRSS        int64  `json:"max_rss,omitempty"`
	Nivcsw        int64  `json:"nivcsw,omitempty"`
	Sigkills      int    `json:"sigkills,omitempty"`
	KillError     string `json:"kill_error,omitempty"`
	OwnCPUNS      int64  `json:"own_cpu_ns,omitempty"`
}

// guard is a guardian's whole life (see guardianVar); it returns its exit
// status.
func guard(config string) int {
	kText, token, ok := strings.Cut(config, ":")
	k, err := strconv.Atoi(kText)
	if !ok || err != nil || k < 0 || len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "spawnbench guardian: bad %s=%q\n", guardianVar, config)
		return 2
	}
	ctlFD, reportFD := 3+k, 4+k
	syscall.CloseOnExec(ctlFD)
	syscall.CloseOnExec(reportFD)
	report := os.NewFile(uintptr(reportFD), "report")
	send := func(r guardReport) {
		b, _ := json.Marshal(r)
		_, _ = report.Write(append(b, '\n')) // no reader: spawnbench is gone
	}
	// A Ctrl-C or hang-up is spawnbench's to handle. Caught, not ignored:
	// an ignored signal would stay ignored in the benchmark.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		send(guardReport{StartError: "become the child subreaper: " + err.Error()})
		return 1
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, guardianVar+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, treeVar+"="+token)
	files := []uintptr{0, 1, 2}
	for fd := 3; fd < 3+k; fd++ {
		files = append(files, uintptr(fd))
	}
	// init runs on the main thread, which lives as long as the guardian:
	// Pdeathsig (tied to the forking thread) fires only if the guardian
	// dies.
	begun := time.Now()
	pid, err := syscall.ForkExec(os.Args[1], os.Args[2:], &syscall.ProcAttr{
		Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		send(guardReport{StartError: err.Error(), StartErrno: int(errno)})
		return 1
	}
	send(guardReport{Started: pid})
	// The tree's streams are the tree's: once the guardian's copies are
	// closed, their readers see their end when the tree's last holder
	// goes, as without a guardian.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 1)
		_ = unix.Dup2(int(null.Fd()), 2)
		null.Close()
	}
	for fd := 3; fd < 3+k; fd++ {
		unix.Close(fd)
	}
	done := watch(pid, begun, os.NewFile(uintptr(ctlFD), "control"))
	var self unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &self) == nil {
		done.OwnCPUNS = self.Utime.Nano() + self.Stime.Nano()
	}
	send(done)
	return 0
}

// reapedChild is one child the guardian waited for.
type reapedChild struct {
	pid int
	ws  syscall.WaitStatus
	ru  syscall.Rusage
	at  time.Time
}

// watch reaps the tree of main until it has no process left, killing
// every one once main ends or ctl has a byte or ends, and says what it
// saw.
func watch(main int, begun time.Time, ctl *os.File) guardReport {
	reaped := make(chan reapedChild, 64)
	childless := make(chan struct{})
	go func() {
		for {
			var c reapedChild
			pid, err := syscall.Wait4(-1, &c.ws, 0, &c.ru)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				// ECHILD: a subreaper without children has no descendants.
				close(childless)
				return
			}
			c.pid, c.at = pid, time.Now()
			reaped <- c
		}
	}()
	asked := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = ctl.Read(b[:]) // a byte, or the end: spawnbench asks, or is gone
		close(asked)
	}()

	var r guardReport
	var u treeUsage
	killing, mainReaped := false, false
	var deadline time.Time
	var tick <-chan time.Time
	pause := 100 * time.Microsecond
	startKilling := func() {
		if killing {
			return
		}
		killing = true
		if !mainReaped {
			_ = syscall.Kill(-main, syscall.SIGKILL)
		}
		killDescendants()
		deadline = time.Now().Add(killLimit)
		tick = time.After(pause)
	}
	for {
		select {
		case c := <-reaped:
			u.add(&c.ru)
			if c.pid == main {
				mainReaped = true
				r.Status, r.WallNS, r.EndedByItself = uint32(c.ws), c.at.Sub(begun).Nanoseconds(), !killing
				// Whatever ended the main process, the rest of its tree
				// goes with it.
				startKilling()
			} else if !killing && c.ws.Signaled() && c.ws.Signal() == syscall.SIGKILL {
				u.sigkills++
			}
		case <-asked:
			asked = nil
			startKilling()
		case <-tick:
			if time.Now().After(deadline) {
				r.KillError = fmt.Sprintf("processes of the tree still there after %s of SIGKILL", killLimit)
				return finish(r, u)
			}
			killDescendants()
			pause = min(2*pause, 20*time.Millisecond)
			tick = time.After(pause)
		case <-childless:
			// What was reaped just before is still in the channel.
			for drained := false; !drained; {
				select {
				case c := <-reaped:
					u.add(&c.ru)
					if c.pid == main {
						r.Status, r.WallNS, r.EndedByItself = uint32(c.ws), c.at.Sub(begun).Nanoseconds(), !killing
					}
				default:
					drained = true
				}
			}
			return finish(r, u)
		}
	}
}

func finish(r guardReport, u treeUsage) guardReport {
	r.Done = true
	r.UserNS, r.SysNS, r.MaxRSS, r.Nivcsw, r.Sigkills = u.userNS, u.sysNS, u.maxRSS, u.nivcsw, u.sigkills
	return r
}

// killDescendants sends SIGKILL to every process whose parent links lead
// to the guardian, each by a pidfd checked to be the process seen.
func killDescendants() {
	stats, err := readStats()
	if err != nil {
		return
	}
	self := os.Getpid()
	ours := map[int]bool{self: true}
	var isOurs func(pid, depth int) bool
	isOurs = func(pid, depth int) bool {
		if v, seen := ours[pid]; seen {
			return v
		}
		st, ok := stats[pid]
		v := ok && depth < 4096 && st.ppid != 0 && isOurs(st.ppid, depth+1)
		ours[pid] = v
		return v
	}
	for pid, st := range stats {
		if pid == self || st.zombie || !isOurs(pid, 0) {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		if again, ok := readStat(pid); ok && again.start == st.start {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// guarded is a tree under a guardian, as spawnbench sees it.
type guarded struct {
	cmd    *exec.Cmd
	ctl    *os.File // spawnbench's end of the control pipe
	main   int
	report chan guardReport // the Done report, or closed without one
	waited error            // the guardian's exit, once report is closed
}

// startGuarded starts path (found as exec.Command would find argv[0])
// under a guardian, with the environment env (the token is the
// guardian's to add), standard output and error stdout and stderr, and
// extraFiles as descriptors 3, 4, ...
func startGuarded(c Command, env []string, token string, stdout, stderr *os.File, extraFiles []*os.File) (*guarded, error) {
	path := c.Argv[0]
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			return nil, err
		}
		path = found
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create the guardian's control pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("create the guardian's report pipe: %w", err)
	}
	cmd := exec.Command("/proc/self/exe", append([]string{path}, c.Argv...)...)
	cmd.Dir = c.Dir
	cmd.Env = append(env, guardianVar+"="+strconv.Itoa(len(extraFiles))+":"+token)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.ExtraFiles = append(append([]*os.File(nil), extraFiles...), ctlR, repW)
	// Its own process group: a Ctrl-C or a kill of spawnbench's group is
	// spawnbench's; the guardian kills the tree when spawnbench is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	ctlR.Close()
	repW.Close()
	if err != nil {
		ctlW.Close()
		repR.Close()
		return nil, fmt.Errorf("start its guardian: %w", err)
	}
	lines := bufio.NewReader(repR)
	first, err := readReport(lines)
	if err != nil || first.Started == 0 {
		ctlW.Close()
		repR.Close()
		werr := cmd.Wait()
		switch {
		case first.StartErrno != 0:
			return nil, &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(first.StartErrno)}
		case first.StartError != "":
			return nil, fmt.Errorf("its guardian: %s", first.StartError)
		}
		return nil, fmt.Errorf("its guardian ended before starting it (%v, %v)", err, werr)
	}
	g := &guarded{cmd: cmd, ctl: ctlW, main: first.Started, report: make(chan guardReport, 1)}
	go func() {
		defer repR.Close()
		last, err := readReport(lines)
		// The guardian ends right after its last line.
		g.waited = cmd.Wait()
		if err == nil && last.Done {
			g.report <- last
		}
		close(g.report)
	}()
	return g, nil
}

func readReport(r *bufio.Reader) (guardReport, error) {
	var rep guardReport
	line, err := r.ReadBytes('\n')
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return rep, err
	}
	return rep, json.Unmarshal(line, &rep)
}

// kill asks the guardian to kill the tree.
func (g *guarded) kill() {
	_, _ = g.ctl.Write([]byte{'k'})
}

// wait waits for the guardian's last report and its end, and releases
// the control pipe. ok is false when it ended without one (killed
// itself).
func (g *guarded) wait() (r guardReport, ok bool) {
	r, ok = <-g.report
	g.ctl.Close()
	return r, ok
}
