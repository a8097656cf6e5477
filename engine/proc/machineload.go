package proc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// machineCPU is the machine-wide CPU time from the "cpu" line of
// /proc/stat, in nanoseconds.
type machineCPU struct {
	busy  int64 // user + nice + system + irq + softirq (guest time is inside user and nice)
	steal int64
}

// readMachineCPU returns the machine's CPU time so far, or false when the
// platform does not say.
func readMachineCPU() (machineCPU, bool) {
	tick := clockTickNS()
	if tick == 0 {
		return machineCPU{}, false
	}
	f, err := os.Open("/proc/stat")
	if err != nil {
		return machineCPU{}, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return machineCPU{}, false
	}
	fields := strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal ...
	if len(fields) < 9 || fields[0] != "cpu" {
		return machineCPU{}, false
	}
	var v [8]int64
	for i := range v {
		n, err := strconv.ParseInt(fields[i+1], 10, 64)
		if err != nil {
			return machineCPU{}, false
		}
		v[i] = n
	}
	return machineCPU{busy: (v[0] + v[1] + v[2] + v[5] + v[6]) * tick, steal: v[7] * tick}, true
}

var (
	clockTickOnce sync.Once
	clockTick     int64
)

// clockTickNS is the length of the tick /proc/stat counts in (USER_HZ), in
// nanoseconds, from the AT_CLKTCK entry the kernel put in spawnbench's
// auxiliary vector; 0 when it cannot be read.
func clockTickNS() int64 {
	clockTickOnce.Do(func() {
		b, err := os.ReadFile("/proc/self/auxv")
		if err != nil {
			return
		}
		const atClkTck = 17
		for ; len(b) >= 16; b = b[16:] {
			key, val := binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint64(b[8:])
			if key == atClkTck && val > 0 {
				clockTick = 1e9 / int64(val)
				return
			}
		}
	})
	return clockTick
}

// oomKills is the kernel's count of OOM kills that spawnbench can see:
// in its own memory cgroup (v2 memory.events, or v1 memory.oom_control)
// and machine-wide (/proc/vmstat). A count that cannot be read is -1.
type oomKills struct {
	cgroup, machine int64
}

func readOOMKills() oomKills {
	return oomKills{cgroup: cgroupOOMKills(), machine: counter("/proc/vmstat", "oom_kill")}
}

// since says whether any count grew from before to k.
func (k oomKills) since(before oomKills) bool {
	return (before.cgroup >= 0 && k.cgroup > before.cgroup) || (before.machine >= 0 && k.machine > before.machine)
}

var (
	oomFileOnce sync.Once
	oomFile     string
)

// cgroupOOMKills reads the oom_kill count of spawnbench's memory cgroup,
// which holds every process it starts unless they move themselves out.
func cgroupOOMKills() int64 {
	oomFileOnce.Do(func() { oomFile = findOOMFile() })
	if oomFile == "" {
		return -1
	}
	return counter(oomFile, "oom_kill")
}

// findOOMFile finds memory.events (cgroup v2) or memory.oom_control
// (cgroup v1) of spawnbench's own cgroup, or "".
func findOOMFile() string {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	var v1, v2 string // the cgroup paths
	for _, line := range strings.Split(string(cg), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasWord(parts[1], ",", "memory"):
			v1 = parts[2]
		}
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || f[3] != "/" {
			continue
		}
		var file string
		switch {
		case g[0] == "cgroup2" && v2 != "":
			file = filepath.Join(f[4], v2, "memory.events")
		case g[0] == "cgroup" && v1 != "" && hasWord(g[2], ",", "memory"):
			file = filepath.Join(f[4], v1, "memory.oom_control")
		default:
			continue
		}
		if counter(file, "oom_kill") >= 0 {
			return file
		}
	}
	return ""
}

func hasWord(list, sep, word string) bool {
	for _, w := range strings.Split(list, sep) {
		if w == word {
			return true
		}
	}
	return false
}

// counter reads the value of key from a file of "key value" lines, or -1.
func counter(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(" "))
		if ok && string(k) == key {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

// selfCPU is spawnbench's own CPU time so far, every thread's, so that
// the supervision of a benchmark is not counted as other load.
func selfCPU() (int64, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
