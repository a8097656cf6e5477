package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"spawnbench/internal/reexec"

	"golang.org/x/sys/unix"
)

// A guardian holds process trees where no cgroup can be made (an
// ordinary user without a delegated cgroup). It is spawnbench's own
// binary, started between spawnbench and a tree's main process:
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
//     end of the guardian's socket closes, and the guardian kills the tree
//     before it ends itself.
//
// A guardian holds one tree at a time, then waits for the next: starting
// one costs some 10 ms (the Go runtime and the package initialisation of
// a large binary), so spawnbench keeps the idle ones (idleGuardians) and
// starts another only for a tree beside a running one (a browser's, say). A tree's descriptors, environment, directory
// and CPUs travel over a Unix socket with the request (SCM_RIGHTS): the
// guardian pins its forking thread as spawnbench would, so the main
// process is pinned from its first instruction.
//
// What is measured stays the tree's: the guardian takes the wall time
// from just before it forks the main process to the moment it reaps it,
// and reports every reaped process's rusage and its own CPU time over
// the tree, which spawnbench does not count as other programs' work.
//
// guardianRole is the helper role (see reexec) of a guardian, with its
// socket on descriptor 3.
const guardianRole = "guardian"

// guardRequest starts a tree: Path run with Argv, Env (the guardian adds
// treeVar=Token), in Dir, pinned to CPUs (none: the guardian's own
// CPUs), with the descriptors sent beside it as its 1, 2, 3, ...; Kill,
// sent later, asks for the tree's end.
type guardRequest struct {
	Path  string   `json:"path,omitempty"`
	Argv  []string `json:"argv,omitempty"`
	Env   []string `json:"env,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	CPUs  []int    `json:"cpus,omitempty"`
	Token string   `json:"token,omitempty"`
	Kill  bool     `json:"kill,omitempty"`
}

// guardReport is what the guardian says of a tree: first Started (the
// main process's pid) or StartError, then, once the tree is gone, Done
// with the rest.
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

// guardMessageMax bounds one request (an environment of a few KiB, most
// of it).
const guardMessageMax = 1 << 20

// received is one request as the guardian read it, with its descriptors.
type received struct {
	req guardRequest
	fds []int
}

// guard is a guardian's whole life (see guardianRole); it returns its exit
// status.
func guard() int {
	conn, err := reexec.Socket()
	if err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench guardian: %v\n", err)
		return 2
	}
	send := func(r guardReport) {
		b, _ := json.Marshal(r)
		_, _ = conn.Write(b) // no reader: spawnbench is gone, and so is the tree
	}
	// A Ctrl-C or hang-up is spawnbench's to handle. Caught, not ignored:
	// an ignored signal would stay ignored in the benchmark.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	subreaperErr := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	var ownCPUs unix.CPUSet
	pinnable := unix.SchedGetaffinity(0, &ownCPUs) == nil

	starts, kills, gone := make(chan received), make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(gone)
		buf, oob := make([]byte, guardMessageMax), make([]byte, unix.CmsgSpace(64*4))
		for {
			n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
			if err != nil || n == 0 {
				return // spawnbench is gone
			}
			var r received
			if err := json.Unmarshal(buf[:n], &r.req); err != nil {
				return
			}
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					if fds, err := unix.ParseUnixRights(&m); err == nil {
						r.fds = append(r.fds, fds...)
					}
				}
			}
			if r.req.Kill {
				select {
				case kills <- struct{}{}:
				default:
				}
				continue
			}
			starts <- r
		}
	}()
	for {
		var r received
		select {
		case r = <-starts:
		case <-gone:
			return 0
		}
		// A kill meant for the last tree, sent as it ended, is not this one's.
		select {
		case <-kills:
		default:
		}
		var before unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_SELF, &before)
		pid, begun, err := startTree(r, subreaperErr, pinnable, &ownCPUs)
		for _, fd := range r.fds {
			unix.Close(fd)
		}
		if err != nil {
			var errno syscall.Errno
			errors.As(err, &errno)
			send(guardReport{StartError: err.Error(), StartErrno: int(errno)})
			continue
		}
		send(guardReport{Started: pid})
		done := watch(pid, begun, kills, gone)
		var after unix.Rusage
		if unix.Getrusage(unix.RUSAGE_SELF, &after) == nil {
			done.OwnCPUNS = after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
		}
		send(done)
	}
}

// startTree forks and execs the main process of request r, its
// descriptors r.fds as its 1, 2, 3, ... and the guardian's /dev/null as
// its standard input.
func startTree(r received, subreaperErr error, pinnable bool, ownCPUs *unix.CPUSet) (int, time.Time, error) {
	if subreaperErr != nil {
		return 0, time.Time{}, fmt.Errorf("become the child subreaper: %w", subreaperErr)
	}
	if len(r.fds) < 2 || len(r.req.Argv) == 0 {
		return 0, time.Time{}, fmt.Errorf("a request without its command or its standard output and error")
	}
	// The forking thread's affinity is what the main process inherits:
	// init runs on the main thread, and every tree is forked from it.
	set := *ownCPUs
	if len(r.req.CPUs) > 0 {
		set.Zero()
		for _, cpu := range r.req.CPUs {
			set.Set(cpu)
		}
	}
	if len(r.req.CPUs) > 0 || pinnable {
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return 0, time.Time{}, fmt.Errorf("pin to CPUs %v: %w", r.req.CPUs, err)
		}
	}
	files := []uintptr{0}
	for _, fd := range r.fds {
		files = append(files, uintptr(fd))
	}
	begun := time.Now()
	// The main thread lives as long as the guardian: Pdeathsig (tied to
	// the forking thread) fires only if the guardian dies.
	pid, err := syscall.ForkExec(r.req.Path, r.req.Argv, &syscall.ProcAttr{
		Dir: r.req.Dir, Env: append(r.req.Env, treeVar+"="+r.req.Token), Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	return pid, begun, err
}

// reapedChild is one child the guardian waited for.
type reapedChild struct {
	pid int
	ws  syscall.WaitStatus
	ru  syscall.Rusage
	at  time.Time
}

// watch reaps the tree of main until it has no process left, killing
// every one once main ends, a kill is asked, or spawnbench is gone, and
// says what it saw.
func watch(main int, begun time.Time, kills <-chan struct{}, gone <-chan struct{}) guardReport {
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
		var info unix.Siginfo
		if !mainReaped || unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) != unix.ECHILD {
			// Not the common end, a main process that left nothing: walk.
			killDescendants()
		}
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
		case <-kills:
			startKilling()
		case <-gone:
			gone = nil
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

// guardian is a guardian process as spawnbench sees it.
type guardian struct {
	cmd     *exec.Cmd
	conn    *net.UnixConn
	reports chan guardReport // closed when the guardian is gone
	exited  error            // why, once reports is closed
}

// idleGuardians are the guardians holding no tree.
var idleGuardians struct {
	sync.Mutex
	list []*guardian
}

// takeGuardian returns an idle guardian, or starts one. It must be called
// from a thread that is not pinned: a guardian keeps the CPUs it was
// started with as its own.
func takeGuardian() (*guardian, error) {
	idleGuardians.Lock()
	if n := len(idleGuardians.list); n > 0 {
		g := idleGuardians.list[n-1]
		idleGuardians.list = idleGuardians.list[:n-1]
		idleGuardians.Unlock()
		return g, nil
	}
	idleGuardians.Unlock()
	// Its own process group: a Ctrl-C or a kill of spawnbench's group is
	// spawnbench's; the guardian kills its tree once spawnbench is gone.
	cmd, conn, err := reexec.StartWithSocket(guardianRole, &syscall.SysProcAttr{Setpgid: true})
	if err != nil {
		return nil, err
	}
	g := &guardian{cmd: cmd, conn: conn, reports: make(chan guardReport, 2)}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := g.conn.Read(buf)
			var r guardReport
			if err != nil || n == 0 || json.Unmarshal(buf[:n], &r) != nil {
				break
			}
			g.reports <- r
		}
		g.conn.Close()
		g.exited = cmd.Wait()
		close(g.reports)
	}()
	return g, nil
}

// putGuardian makes g idle again.
func putGuardian(g *guardian) {
	idleGuardians.Lock()
	idleGuardians.list = append(idleGuardians.list, g)
	idleGuardians.Unlock()
}

// guarded is a tree under a guardian, as spawnbench sees it.
type guarded struct {
	g    *guardian
	main int
	// last and lastOK are the guardian's report of the tree's end, set
	// before the tree's end is passed on (held).
	last   guardReport
	lastOK bool
}

// startGuarded has a guardian start path (found as exec.Command would
// find c.Argv[0]) with the environment env (the token is the guardian's
// to add), standard output and error stdout and stderr, and extraFiles as
// descriptors 3, 4, ...
func startGuarded(g *guardian, c Command, env []string, token string, stdout, stderr *os.File, extraFiles []*os.File) (*guarded, error) {
	path := c.Argv[0]
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			putGuardian(g)
			return nil, err
		}
		path = found
	}
	req, err := json.Marshal(guardRequest{Path: path, Argv: c.Argv, Env: env, Dir: c.Dir, CPUs: c.CPUs, Token: token})
	if err != nil || len(req) > guardMessageMax {
		putGuardian(g)
		return nil, fmt.Errorf("a request of %d bytes for its guardian: %v", len(req), err)
	}
	fds := []int{int(stdout.Fd()), int(stderr.Fd())}
	for _, f := range extraFiles {
		fds = append(fds, int(f.Fd()))
	}
	if _, _, err := g.conn.WriteMsgUnix(req, unix.UnixRights(fds...), nil); err != nil {
		return nil, fmt.Errorf("send it to its guardian: %w", err)
	}
	first, ok := <-g.reports
	switch {
	case !ok:
		return nil, fmt.Errorf("its guardian ended before starting it (%v)", g.exited)
	case first.StartErrno != 0:
		putGuardian(g)
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(first.StartErrno)}
	case first.StartError != "":
		putGuardian(g)
		return nil, errors.New(first.StartError)
	}
	return &guarded{g: g, main: first.Started}, nil
}

// kill asks the guardian to kill the tree.
func (t *guarded) kill() {
	req, _ := json.Marshal(guardRequest{Kill: true})
	_, _ = t.g.conn.Write(req)
}

// wait waits for the guardian's report of the tree's end; ok is false
// when the guardian ended without one.
func (t *guarded) wait() (r guardReport, ok bool) {
	r, ok = <-t.g.reports
	return r, ok && r.Done
}

// release gives the guardian back once its tree is gone and spawnbench
// sends it nothing more about that tree (a kill sent as the tree ended
// comes before the next request, and the guardian drops it). A guardian
// whose tree could not be killed whole still has children: it is let go,
// not reused.
func (t *guarded) release() {
	if t.lastOK && t.last.KillError == "" {
		putGuardian(t.g)
		return
	}
	t.g.conn.Close()
}
