package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A benchmark's process tree is every process descended from the one
// spawnbench started, whatever it did to leave that process's group or
// session (setsid, a double fork, closed and reopened streams). In a
// cgroup (contain.go) the tree is simply the cgroup. Without one, the tree
// is found three ways, because no one of them is enough on its own:
//
//   - the parent links in /proc/*/stat, walked from the main process and
//     from every member already known, on a schedule while it runs and
//     repeatedly while it is being killed;
//   - spawnbench is a child subreaper (PR_SET_CHILD_SUBREAPER), so an
//     orphan of the tree becomes spawnbench's child rather than init's:
//     it cannot escape the walk, and spawnbench can reap it and read its
//     rusage;
//   - every process of the tree inherits treeVar=<token> in its
//     environment, which tells an orphan of this tree from spawnbench's
//     other children (a concurrent build, another benchmark's browser):
//     those are never touched.
//
// Members are held by pidfd once found, so a recycled pid can never make
// spawnbench signal or reap a stranger.
const treeVar = "SPAWNBENCH_TREE"

var (
	subreaperOnce sync.Once
	subreaperErr  error
	treeSeq       atomic.Int64
)

// becomeSubreaper makes spawnbench the subreaper of its descendants, once
// per process.
func becomeSubreaper() error {
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			subreaperErr = fmt.Errorf("become the child subreaper: %w", err)
		}
	})
	return subreaperErr
}

// member is one descendant of the main process.
type member struct {
	start  uint64 // start time, field 22 of /proc/PID/stat: pid plus start is a process's identity
	pidfd  int    // -1 when pidfd_open is not available
	reaped bool
}

// procStat is what the walk needs from /proc/PID/stat.
type procStat struct {
	ppid   int
	start  uint64
	zombie bool
}

// tree tracks the descendants of one started process. It is used from the
// supervising goroutine only.
type tree struct {
	self    int
	main    int
	token   string
	members map[int]*member
	// strangers are spawnbench's children that are not of this tree, by
	// pid and start time, so their environment is read once.
	strangers map[int]uint64
	usage     treeUsage
	// killing is set once spawnbench starts killing: a SIGKILL seen after
	// it is spawnbench's own, not the kernel's.
	killing bool
	// mainReaped is set once the main process is reaped: from then on
	// its pid may name a stranger.
	mainReaped bool
	// adoptedByInit is set when spawnbench could not become the subreaper:
	// orphans then go to init, and are looked for there.
	adoptedByInit bool
	// box is the tree's cgroup, nil without one (see contain.go): every
	// process in it is of the tree, wherever its parent links lead.
	box *box
}

// treeUsage adds up the rusage of every process of the tree that
// spawnbench reaped (the main process and its orphans).
type treeUsage struct {
	known    bool
	userNS   int64
	sysNS    int64
	maxRSS   int64 // bytes
	nivcsw   int64
	sigkills int // processes found ended by a SIGKILL spawnbench did not send
}

func (u *treeUsage) add(ru *syscall.Rusage) {
	u.known = true
	u.userNS += ru.Utime.Nano()
	u.sysNS += ru.Stime.Nano()
	u.maxRSS = max(u.maxRSS, ru.Maxrss*1024) // Linux reports KiB
	u.nivcsw += ru.Nivcsw
}

func newTree(main int, token string) *tree {
	return &tree{
		self:      os.Getpid(),
		main:      main,
		token:     token,
		members:   map[int]*member{},
		strangers: map[int]uint64{},
	}
}

// newToken names a tree uniquely among this spawnbench's trees and any
// other spawnbench's on the machine.
// Its owner part (see Owner) lets a keeper, or the next spawnbench, find
// the processes of a spawnbench that is gone.
func newToken() string {
	return Owner() + "." + strconv.FormatInt(treeSeq.Add(1), 10)
}

// readStats reads the parent and start time of every process.
func readStats() (map[int]procStat, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	stats := make(map[int]procStat, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			stats[pid] = st
		}
	}
	return stats, nil
}

func readStat(pid int) (procStat, bool) {
	// A stat line is a few hundred bytes; reading it into the stack with
	// raw system calls keeps a walk of /proc cheap (it runs beside the
	// benchmark).
	var buf [1024]byte
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, false
	}
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return procStat{}, false
	}
	b := buf[:n]
	// The command name, in parentheses, may hold spaces and ')': the
	// fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so field k is f[k-3].
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, ok1 := parseUint(f[1])
	start, ok2 := parseUint(f[19])
	if !ok1 || !ok2 {
		return procStat{}, false
	}
	return procStat{ppid: int(ppid), start: start, zombie: len(f[0]) == 1 && f[0][0] == 'Z'}, true
}

func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// hasToken says whether pid's environment names this tree.
func (t *tree) hasToken(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(treeVar + "=" + t.token)
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// scan updates the members from /proc: members that are gone are dropped,
// and every process whose parent is the main process or a member, or that
// is spawnbench's child carrying this tree's token, joins. A tree in a
// cgroup needs no members: the cgroup holds it.
func (t *tree) scan() {
	if t.box != nil {
		return
	}
	stats, err := readStats()
	if err != nil {
		return
	}
	for pid, m := range t.members {
		// Without a pidfd a zombie cannot be reaped safely: it is dead,
		// which is all that matters here.
		if st, ok := stats[pid]; !ok || st.start != m.start || (m.pidfd < 0 && st.zombie) {
			t.drop(pid)
		}
	}
	for pid, start := range t.strangers {
		if st, ok := stats[pid]; !ok || st.start != start {
			delete(t.strangers, pid)
		}
	}
	for grew := true; grew; {
		grew = false
		for pid, st := range stats {
			if pid == t.main || t.members[pid] != nil {
				continue
			}
			ours := (st.ppid == t.main && !t.mainReaped) || t.members[st.ppid] != nil
			if !ours && (st.ppid == t.self || (t.adoptedByInit && st.ppid == 1)) {
				if start, seen := t.strangers[pid]; seen && start == st.start {
					continue
				}
				ours = t.token != "" && t.hasToken(pid)
				if !ours {
					t.strangers[pid] = st.start
				}
			}
			if ours && t.join(pid, st.start) {
				grew = true
			}
		}
	}
}

// join holds pid by a pidfd, having checked that the pidfd is the process
// that was seen (and not a successor with a recycled pid).
func (t *tree) join(pid int, start uint64) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return false // gone already
	}
	if err != nil {
		// No pidfds (an old kernel, or no file descriptors left): the
		// member is still killed, by pid, though not reaped.
		fd = -1
	}
	if st, ok := readStat(pid); !ok || st.start != start {
		if fd >= 0 {
			unix.Close(fd)
		}
		return false
	}
	t.members[pid] = &member{start: start, pidfd: fd}
	return true
}

func (t *tree) drop(pid int) {
	if m := t.members[pid]; m != nil && m.pidfd >= 0 {
		unix.Close(m.pidfd)
	}
	delete(t.members, pid)
}

// childSiginfo is the part of waitid's siginfo_t for a child (see
// sigaction(2)); unix.Siginfo hides these fields.
type childSiginfo struct {
	Signo  int32
	Errno  int32
	Code   int32
	_      int32
	Pid    int32
	UID    uint32
	Status int32
	_      [100]byte
}

// cldKilled is si_code CLD_KILLED: the child was killed by a signal.
const cldKilled = 2

// The two layouts must have one size for the cast in reap.
var _ = [1]struct{}{}[unsafe.Sizeof(childSiginfo{})-unsafe.Sizeof(unix.Siginfo{})]

// reap waits, without blocking, for every member that has become
// spawnbench's child and has ended, adding its rusage to the tree's.
func (t *tree) reap() {
	for pid, m := range t.members {
		if m.pidfd < 0 || m.reaped {
			continue
		}
		var info childSiginfo
		var ru unix.Rusage
		err := unix.Waitid(unix.P_PIDFD, m.pidfd, (*unix.Siginfo)(unsafe.Pointer(&info)), unix.WEXITED|unix.WNOHANG, &ru)
		if err != nil || info.Signo != int32(syscall.SIGCHLD) {
			continue // not our child (yet), or still running
		}
		m.reaped = true
		t.usage.add((*syscall.Rusage)(unsafe.Pointer(&ru)))
		if !t.killing && info.Code == cldKilled && info.Status == int32(syscall.SIGKILL) {
			t.usage.sigkills++
		}
		t.drop(pid)
	}
}

// kill sends SIGKILL to every member still running.
func (t *tree) kill() {
	t.killing = true
	for pid, m := range t.members {
		if m.pidfd >= 0 {
			_ = unix.PidfdSendSignal(m.pidfd, unix.SIGKILL, nil, 0)
		} else {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killAll kills the main process's group and every descendant, again and
// again until none is left (a member may fork while being killed), and
// reaps the ones that became spawnbench's children. It gives up after
// limit, which only a process stuck in the kernel can reach.
func (t *tree) killAll(mainAlive bool, limit time.Duration) error {
	t.killing = true
	if mainAlive {
		_ = syscall.Kill(-t.main, syscall.SIGKILL)
		_ = syscall.Kill(t.main, syscall.SIGKILL)
	} else {
		// The group outlives its leader; a member of it may not have been
		// scanned yet.
		_ = syscall.Kill(-t.main, syscall.SIGKILL)
	}
	if t.box != nil {
		// Everything in the cgroup, however it got away from its parents;
		// its orphans are not spawnbench's to reap.
		return t.box.kill(limit)
	}
	deadline := time.Now().Add(limit)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		t.scan()
		t.kill()
		t.reap()
		if len(t.members) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes of the tree still there after %s of SIGKILL", len(t.members), limit)
		}
		time.Sleep(pause)
	}
}

// cgroupCPU is the user and system CPU time of every process that was in
// the tree's cgroup (its cpu.stat), when it has one.
func (t *tree) cgroupCPU() (treeUsage, bool) {
	if t.box == nil {
		return treeUsage{}, false
	}
	data, err := os.ReadFile(t.box.dir + "/cpu.stat")
	if err != nil {
		return treeUsage{}, false
	}
	var u treeUsage
	found := 0
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		k, v, _ := bytes.Cut(line, []byte{' '})
		us, ok := parseUint(v)
		switch {
		case !ok:
		case string(k) == "user_usec":
			u.userNS, found = int64(us)*1000, found+1
		case string(k) == "system_usec":
			u.sysNS, found = int64(us)*1000, found+1
		}
	}
	return u, found == 2
}

// close releases the pidfds of members left (only after killAll gave up)
// and removes the tree's cgroup.
func (t *tree) close() error {
	for pid := range t.members {
		t.drop(pid)
	}
	if t.box == nil {
		return nil
	}
	if left := t.box.pids(); len(left) > 0 {
		// Left for the keeper, which kills it when spawnbench ends.
		return fmt.Errorf("processes %v of the tree still run in cgroup %s", left, t.box.dir)
	}
	return t.box.remove()
}
