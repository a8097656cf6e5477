package run

import (
	"fmt"
	"strings"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
)

// classify turns an Outcome and its parsed stdout into a status and an
// error text. Out of memory is read from how the process ended, never
// from a clean exit: a process that exited 0 and printed every line is ok
// whatever its stderr says.
func classify(o env.Outcome, lines *protocol.Collector, want int) (status, msg string) {
	tail := stderrTail(o.Stderr)
	ended := o.Signal != "" || o.ExitCode != 0
	got := len(lines.Lines())
	switch {
	case o.Limit != "":
		// The limit says why the page stalled; the browser's stderr of a
		// stalled page is its own housekeeping and would read as the cause.
		return results.StatusCapped, o.Limit
	case o.TimedOut && flooded(o, want):
		return results.StatusTimeout, joinMsg(fmt.Sprintf("killed after passing the timeout (%s) while flooding its standard output: it printed %s, where %d spawns need about %d lines of under 64 bytes (c/sb.h)",
			o.Wall.Round(1e6), byteSize(o.StdoutBytes), want, want), tail)
	case o.TimedOut:
		return results.StatusTimeout, joinMsg(fmt.Sprintf("killed after passing the timeout (%s)", o.Wall.Round(1e6)), tail)
	case oomKilled(o):
		return results.StatusOOM, joinMsg("killed by the kernel's out-of-memory killer", tail)
	case ended && mentionsOOM(tail):
		return results.StatusOOM, tail
	case o.Signal != "":
		return results.StatusCrashed, joinMsg("ended by signal "+o.Signal, tail)
	case o.ExitCode != 0:
		return results.StatusFailed, joinMsg(fmt.Sprintf("exit status %d", o.ExitCode), tail)
	case lines.Err() != nil:
		return results.StatusFailed, joinMsg(lines.Err().Error(), tail)
	case lines.Extra() > 0:
		return results.StatusFailed, joinMsg(fmt.Sprintf("printed %d spawn lines for n = %d", got+lines.Extra(), want), tail)
	case got < want:
		return results.StatusShort, joinMsg(fmt.Sprintf("printed %d spawn lines, want %d", got, want), tail)
	}
	return results.StatusOK, tail
}

// floodSlack is the standard output a process may print beyond two
// protocol lines a spawn (comments, a runtime's banner) before it counts
// as flooding.
const floodSlack = 1 << 20

// flooded says whether a process printed far more than its want spawns'
// lines: a benchmark stuck in a loop of output, which then reads as a
// timeout only because the flood never ends.
func flooded(o env.Outcome, want int) bool {
	return o.StdoutBytes > floodSlack+int64(max(want, 0))*2*128
}

// byteSize is n bytes for a message: "812 KiB", "3.4 GiB".
func byteSize(n int64) string {
	v, unit := float64(n), "bytes"
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	if unit == "bytes" {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// oomKilled: the process died of SIGKILL and the kernel or its cgroup
// says it was the out-of-memory killer.
func oomKilled(o env.Outcome) bool {
	return o.Signal == "killed" && o.OOMKilled
}

// recordLoad copies the process's resource use, the machine's noise over
// its span, and the renderer that ran a page and the requests its server
// refused, into its row; unknown stays null.
func recordLoad(row *results.ProcessRun, o env.Outcome) {
	row.UserNS, row.SysNS, row.MaxRSSBytes = o.UserNS, o.SysNS, o.MaxRSSBytes
	row.CtxSwitchesInvoluntary = o.InvoluntaryCtxSwitches
	row.OthersCPUNS, row.StealNS = o.OthersCPUNS, o.StealNS
	if o.RendererPID > 0 {
		pid := int64(o.RendererPID)
		row.RendererPID = &pid
	}
	row.RefusedRequests = o.RefusedRequests
}

func mentionsOOM(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"out of memory", "aborted(oom)", "cannot enlarge memory", "rangeerror: webassembly.memory", "heap out of memory"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// stderrTail keeps the last lines of stderr: where runtimes say why.
func stderrTail(b []byte) string {
	const max = 2000
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = "..." + s[len(s)-max:]
	}
	return s
}

func joinMsg(a, b string) string {
	if b == "" {
		return a
	}
	return a + ": " + b
}
