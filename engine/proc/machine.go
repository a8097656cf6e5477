package proc

// What engine/browser needs to charge a page that runs in a browser that
// outlives it (a warm browser): the page's span has no process of its own
// whose start and end proc sees, so the browser reads the machine at the
// span's ends itself.

// MachineCPU is the machine's busy CPU time (user, nice, system, irq,
// softirq of every CPU) and steal time so far, from /proc/stat, in
// nanoseconds; ok is false where the platform does not say.
func MachineCPU() (busyNS, stealNS int64, ok bool) {
	m, ok := readMachineCPU()
	return m.busy, m.steal, ok
}

// SelfCPU is spawnbench's own CPU time so far, every thread's.
func SelfCPU() (int64, bool) { return selfCPU() }

// ClockTickNS is the tick /proc counts CPU time in (USER_HZ), in
// nanoseconds; 0 when it cannot be read.
func ClockTickNS() int64 { return clockTickNS() }
