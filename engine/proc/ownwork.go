package proc

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// OwnWork is what starting and ending one process costs the machine
// outside the CPU time that Outcome already subtracts (the tree's and
// spawnbench's own): the kernel's deferred work for a process and its
// cgroup (freeing them, RCU callbacks, kworkers), and the bias of
// /proc/stat's sampled ticks on a CPU woken from idle. It is counted in
// every Outcome's OthersCPUNS, though no other program did it: on an idle
// machine a 1 ms process shows about a quarter of its wall time as
// "others'". The busy rule subtracts it per process.
type OwnWork struct {
	// PerProcessNS is the machine's non-idle time per trivial process
	// that neither it nor spawnbench was charged for.
	PerProcessNS int64
	// OthersCPUs is the load that grew with wall time while it was
	// measured, in CPUs: other programs' work. Near 0 on an idle machine.
	OthersCPUs float64
	// Processes is how many trivial processes stand behind the figures.
	Processes int
}

// ownWorkRounds trivial processes of two lengths are interleaved, so that
// the part of others' CPU time that grows with wall time (other programs'
// load) can be told from the part that comes with every process
// (spawnbench's own). The short ones are many because /proc/stat's ticks
// are coarse against a millisecond process: their sum is what counts.
const (
	ownWorkRounds = 10
	ownWorkShort  = 20 // `true` processes a round
	ownWorkLong   = 20 * time.Millisecond
)

// MeasureOwnWork runs 210 trivial processes (`true`, and `sleep` for
// 20 ms) under the same containment as a benchmark and fits others' CPU
// time per process as own + load × wall. It takes about half a second.
func MeasureOwnWork(ctx context.Context) (OwnWork, error) {
	trueCmd, err := exec.LookPath("true")
	if err != nil {
		return OwnWork{}, fmt.Errorf("measure spawnbench's own work per process: %w", err)
	}
	sleepCmd, err := exec.LookPath("sleep")
	if err != nil {
		return OwnWork{}, fmt.Errorf("measure spawnbench's own work per process: %w", err)
	}
	var short, long ownWorkSum
	for range ownWorkRounds {
		for range ownWorkShort {
			if err := short.run(ctx, []string{trueCmd}); err != nil {
				return OwnWork{}, err
			}
		}
		if err := long.run(ctx, []string{sleepCmd, fmt.Sprintf("%.3f", ownWorkLong.Seconds())}); err != nil {
			return OwnWork{}, err
		}
	}
	return fitOwnWork(short, long), nil
}

// ownWorkSum adds up the others' CPU time and wall time of processes of
// one length.
type ownWorkSum struct {
	others, wall int64
	n            int
}

func (s *ownWorkSum) run(ctx context.Context, argv []string) error {
	out, err := Run(ctx, Command{Argv: argv})
	if err != nil {
		return fmt.Errorf("measure spawnbench's own work per process: %w", err)
	}
	if out.ExitCode != 0 || out.OthersCPUNS == nil {
		return fmt.Errorf("measure spawnbench's own work per process: %s exited %d (others' CPU time known: %t)",
			argv[0], out.ExitCode, out.OthersCPUNS != nil)
	}
	s.others += *out.OthersCPUNS
	s.wall += out.Wall.Nanoseconds()
	s.n++
	return nil
}

// fitOwnWork solves others = own + load × wall from the mean process of
// each length. Neither can be negative: tick noise that says so means
// "none".
func fitOwnWork(short, long ownWorkSum) OwnWork {
	w := OwnWork{Processes: short.n + long.n}
	if short.n == 0 || long.n == 0 {
		return w
	}
	shortOthers, shortWall := float64(short.others)/float64(short.n), float64(short.wall)/float64(short.n)
	longOthers, longWall := float64(long.others)/float64(long.n), float64(long.wall)/float64(long.n)
	if longWall > shortWall {
		w.OthersCPUs = max(0, (longOthers-shortOthers)/(longWall-shortWall))
	}
	w.PerProcessNS = int64(max(0, shortOthers-w.OthersCPUs*shortWall))
	return w
}
