package report

import "spawnbench/engine/results"

// busyShares and busy read the machine-load columns of one process.
// TEMPORARY until engine/results carries others_cpu_ns and steal_ns (helper
// "run"): until then no process knows its load.
func busyShares(results.ProcessRun) (others, steal Float, known bool) { return 0, 0, false }

func busy(results.ProcessRun) bool { return false }

const busyShareThreshold = 0.10
