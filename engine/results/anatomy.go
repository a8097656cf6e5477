package results

// Traced is true when the spawn's kernel events were recorded: its
// process was traced, and the trace says whether the spawn made a new
// task (NewOSThread is set either way there). The report splits only
// such spawns into their parts (engine/report's anatomy).
func (s SpawnSample) Traced() bool { return s.NewOSThread != nil }
