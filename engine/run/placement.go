package run

import (
	"spawnbench/engine/results"

	"golang.org/x/sys/unix"
)

// allowedCPUs is the CPUs a benchmark process may run on, as the runs
// table records them: its pinning, or without one the CPUs spawnbench
// itself may use (the child inherits them); none where the platform cannot
// tell.
func allowedCPUs(pinned []int) results.CPUList {
	if len(pinned) > 0 {
		return cpuList(pinned)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpuList(cpus)
}
