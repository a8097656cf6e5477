package browser

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A browser's processes, as /proc shows them: to charge a page of a warm
// browser its share of the tree's CPU time, to find the renderer that ran
// it, and to kill what a browser leaves behind.
//
// Chromium's crash handlers (chrome_crashpad_handler) leave the browser's
// process group and session, so killing the group does not reach them.
// They do name the crash database, which the browser's start puts inside
// the profile directory, so they can be found by that and killed one by
// one.

// procInfo is one process of /proc/<pid>/stat.
type procInfo struct {
	comm  string // the command name, e.g. "Isolated Web Co"
	state byte
	pgid  int
	// start is the start time since boot and utime, stime the CPU time
	// so far (every thread's, exited ones too), all in clock ticks.
	start, utime, stime uint64
}

// procTable is the processes of one browser's process group, by pid.
type procTable map[int]procInfo

// has says whether pid is in the table as the same process (the same
// start time) and with the same command name.
func (t procTable) has(pid int, p procInfo) bool {
	q, ok := t[pid]
	return ok && q.start == p.start && q.comm == p.comm
}

// groupProcs returns the living processes of process group pgid.
func groupProcs(pgid int) procTable {
	out := procTable{}
	eachProc(func(pid int, p procInfo) {
		if p.pgid == pgid {
			out[pid] = p
		}
	})
	return out
}

// eachProc calls fn for every living process other than zombies.
func eachProc(fn func(pid int, p procInfo)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		p, ok := parseStat(stat)
		if !ok || p.state == 'Z' || p.state == 'X' {
			continue
		}
		fn(pid, p)
	}
}

// parseStat reads /proc/<pid>/stat, whose second field, the command
// name, may hold spaces and parentheses.
func parseStat(stat []byte) (procInfo, bool) {
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return procInfo{}, false
	}
	f := bytes.Fields(stat[end+1:])
	// After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags,
	// minflt, cminflt, majflt, cmajflt, utime, stime, cutime, cstime,
	// priority, nice, num_threads, itrealvalue, starttime, ...
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	pgid, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return procInfo{}, false
	}
	var v [3]uint64
	for i, at := range []int{11, 12, 19} {
		if v[i], err = strconv.ParseUint(string(f[at]), 10, 64); err != nil {
			return procInfo{}, false
		}
	}
	return procInfo{comm: string(stat[open+1 : end]), state: f[0][0], pgid: pgid, utime: v[0], stime: v[1], start: v[2]}, true
}

// peakRSS is the process's peak resident memory (VmHWM), in bytes; 0 when
// it cannot be read.
func peakRSS(pid int) int64 {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// living returns the processes, other than zombies, that are in process
// group pgid or whose command line names profile.
func living(pgid int, profile string) []int {
	var out []int
	eachProc(func(pid int, p procInfo) {
		if p.pgid == pgid {
			out = append(out, pid)
			return
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(profile)) {
			out = append(out, pid)
		}
	})
	return out
}

// killLeftovers kills what is left of a browser whose group was killed,
// and waits, briefly, until none of it runs.
func killLeftovers(pgid int, profile string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := living(pgid, profile)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("browser processes %v still run after being killed", left)
		}
		for _, pid := range left {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("kill browser process %d: %w", pid, err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
