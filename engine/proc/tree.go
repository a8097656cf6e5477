package proc

import (
	"bytes"
	"fmt"
	"os"
	"spawnbench/engine/protocol"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A benchmark's process tree is every process descended from the one
// spawnbench started, whatever it did to leave that process's group or
// session (setsid, a double fork, closed and reopened streams, a cleared
// environment). It is held one of two ways (contain.go): in a cgroup of
// its own, where the tree is simply the cgroup, or under a guardian
// (guardian.go), a process of spawnbench's own that starts the tree and
// is its child subreaper, so that every orphan of the tree becomes the
// guardian's child and the tree is exactly the guardian's descendants.
//
// Every process of the tree also inherits treeVar=<token> in its
// environment: what lets a keeper, or the next spawnbench, find what a
// spawnbench that is gone left running when its guardian went with it.
const treeVar = "SPAWNBENCH_TREE"

var treeSeq atomic.Int64

// procStat is what a walk of /proc needs from /proc/PID/stat.
type procStat struct {
	ppid   int
	start  uint64 // start time, field 22: pid plus start is a process's identity
	zombie bool
}

// tree is one process tree held in a cgroup, as its supervisor sees it.
type tree struct {
	main int
	// box is the tree's cgroup: every process in it is of the tree,
	// wherever its parent links lead.
	box *box
}

// treeUsage adds up the rusage of every process of the tree that was
// reaped by its supervisor (the main process, and a guardian's orphans).
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
	// raw system calls keeps a walk of /proc cheap (a guardian walks it
	// again and again while it kills).
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
	ppid, ok1 := protocol.ParseDigits(f[1])
	start, ok2 := protocol.ParseDigits(f[19])
	if !ok1 || !ok2 {
		return procStat{}, false
	}
	return procStat{ppid: int(ppid), start: start, zombie: len(f[0]) == 1 && f[0][0] == 'Z'}, true
}

// killAll kills the main process's group and everything in the tree's
// cgroup, however it got away from its parents, and waits until the
// cgroup is empty. It gives up after limit, which only a process stuck in
// the kernel can reach.
func (t *tree) killAll(mainAlive bool, limit time.Duration) error {
	if mainAlive {
		_ = syscall.Kill(-t.main, syscall.SIGKILL)
		_ = syscall.Kill(t.main, syscall.SIGKILL)
	}
	return t.box.kill(limit)
}

// cgroupCPU is the user and system CPU time of every process that was in
// the tree's cgroup (its cpu.stat).
func (t *tree) cgroupCPU() (treeUsage, bool) {
	data, err := os.ReadFile(t.box.dir + "/cpu.stat")
	if err != nil {
		return treeUsage{}, false
	}
	var u treeUsage
	found := 0
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		k, v, _ := bytes.Cut(line, []byte{' '})
		us, ok := protocol.ParseDigits(v)
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

// close removes the tree's cgroup.
func (t *tree) close() error {
	if left := t.box.pids(); len(left) > 0 {
		// Left for the keeper, which kills it when spawnbench ends.
		return fmt.Errorf("processes %v of the tree still run in cgroup %s", left, t.box.dir)
	}
	return t.box.remove()
}
