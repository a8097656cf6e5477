package run

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"spawnbench/engine/results"
)

// HostnameVariable names the environment variable that overrides the
// hostname recorded (and so the machine ID). In a container the hostname
// is the container's (a pod's name), not the machine's; a Kubernetes Job
// sets it to the node's name (the downward API's spec.nodeName), so that
// shards which ran on one node share one machine ID.
const HostnameVariable = "SPAWNBENCH_HOSTNAME"

// Machine describes this machine for provenance, with its ID.
func Machine() results.Machine {
	m := results.Machine{
		CPUModel: cpuModel(), Cores: runtime.NumCPU(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
	}
	m.Hostname, _ = os.Hostname()
	if h := os.Getenv(HostnameVariable); h != "" {
		m.Hostname = h
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])
	}
	m.ID = m.Identity()
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
