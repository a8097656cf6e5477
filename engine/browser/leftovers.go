package browser

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Chromium's crash handlers (chrome_crashpad_handler) leave the browser's
// process group and session, so killing the group does not reach them.
// They do name the crash database, which startChromium puts inside the
// profile directory, so they can be found by that and killed one by one.

// living returns the processes, other than zombies, that are in process
// group pgid or whose command line names profile.
func living(pgid int, profile string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		state, group, ok := parseStat(stat)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		if group == pgid {
			out = append(out, pid)
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(profile)) {
			out = append(out, pid)
		}
	}
	return out
}

// parseStat reads the state and the process group from /proc/<pid>/stat,
// whose second field, the command name, may hold spaces and parentheses.
func parseStat(stat []byte) (state byte, pgid int, ok bool) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[end+1:])
	// After the name: state, ppid, pgrp, ...
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgid, err := strconv.Atoi(string(f[2]))
	return f[0][0], pgid, err == nil
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
