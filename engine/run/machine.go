package run

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"spawnbench/engine/results"
)

// Machine describes this machine for provenance.
func Machine() results.Machine {
	m := results.Machine{
		CPUModel: cpuModel(), Cores: runtime.NumCPU(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
	}
	m.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])
	}
	return m
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
