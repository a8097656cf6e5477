package run

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/env"
	"spawnbench/engine/results"
)

// spawnLine is one parsed line of the benchmark protocol (see c/sb.h).
type spawnLine struct {
	spawn   int64
	created *int64
	joined  *int64
}

// parseLines reads the protocol: blank lines and lines starting with '#'
// are skipped; every other line holds one to three integers. It stops at
// the first malformed line and says which.
func parseLines(out []byte) ([]spawnLine, error) {
	var lines []spawnLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for no := 1; sc.Scan(); no++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) > 3 {
			return lines, fmt.Errorf("stdout line %d has %d fields, want at most 3: %q", no, len(fields), text)
		}
		var vals [3]int64
		for i, f := range fields {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return lines, fmt.Errorf("stdout line %d is not integers: %q", no, text)
			}
			vals[i] = v
		}
		l := spawnLine{spawn: vals[0]}
		if len(fields) > 1 {
			l.created = &vals[1]
		}
		if len(fields) > 2 {
			l.joined = &vals[2]
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

// classify turns an Outcome into a status and an error text.
func classify(o env.Outcome, lines, want int, parseErr error) (status, msg string) {
	tail := stderrTail(o.Stderr)
	switch {
	case o.TimedOut:
		return results.StatusTimeout, joinMsg(fmt.Sprintf("killed after passing the timeout (%s)", o.Wall.Round(1e6)), tail)
	case mentionsOOM(tail):
		return results.StatusOOM, tail
	case o.Signal != "":
		return results.StatusCrashed, joinMsg("ended by signal "+o.Signal, tail)
	case o.ExitCode != 0:
		return results.StatusFailed, joinMsg(fmt.Sprintf("exit status %d", o.ExitCode), tail)
	case parseErr != nil:
		return results.StatusFailed, joinMsg(parseErr.Error(), tail)
	case lines < want:
		return results.StatusShort, joinMsg(fmt.Sprintf("printed %d spawn lines, want %d", lines, want), tail)
	}
	return results.StatusOK, tail
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
