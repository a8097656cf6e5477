package proc

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/protocol"
)

// TestBigOutput prints 1 GB through each of spawnbench's output paths and
// checks that memory stays bounded by what is kept, not by what is
// printed. It takes about a minute on 2 cores, so it is opt-in:
//
//	SPAWNBENCH_BIG_OUTPUT=1 go test ./engine/proc/ -run BigOutput -v
func TestBigOutput(t *testing.T) {
	if os.Getenv("SPAWNBENCH_BIG_OUTPUT") == "" {
		t.Skip("set SPAWNBENCH_BIG_OUTPUT=1 to print 1 GB through spawnbench's pipes")
	}
	const size = 1_000_000_000
	const maxRSS = 200 << 20
	gb := strconv.Itoa(size)
	for _, tc := range []struct {
		name    string
		script  string
		collect bool
		check   func(t *testing.T, out Outcome, c *protocol.Collector)
	}{
		{
			name:    "spawn lines streamed into a Collector",
			script:  "yes '123456 234567 345678' | head -c " + gb,
			collect: true,
			check: func(t *testing.T, out Outcome, c *protocol.Collector) {
				// 21-byte lines, and a last partial one, "123456 234567",
				// that is a spawn line too.
				if len(c.Lines()) != 1000 || c.Extra() != size/21+1-1000 || c.Err() != nil {
					t.Errorf("kept %d lines, %d extra, err %v", len(c.Lines()), c.Extra(), c.Err())
				}
				t.Logf("collector: kept %d lines, reports %d spawn lines beyond them", len(c.Lines()), c.Extra())
			},
		},
		{
			name:    "one line streamed into a Collector",
			script:  "head -c " + gb + " /dev/zero | tr '\\0' 7",
			collect: true,
			check: func(t *testing.T, out Outcome, c *protocol.Collector) {
				if err := c.Err(); err == nil || !strings.Contains(err.Error(), "stdout line 1 is longer than") {
					t.Errorf("err = %v", err)
				} else {
					t.Logf("collector: %v", err)
				}
			},
		},
		{
			name:   "stdout captured",
			script: "head -c " + gb + " /dev/zero",
			check: func(t *testing.T, out Outcome, c *protocol.Collector) {
				if len(out.Stdout) != StdoutKept || out.StdoutDropped != size-StdoutKept {
					t.Errorf("kept %d, dropped %d", len(out.Stdout), out.StdoutDropped)
				}
			},
		},
		{
			name:   "stderr",
			script: "head -c " + gb + " /dev/zero >&2",
			check: func(t *testing.T, out Outcome, c *protocol.Collector) {
				if len(out.Stderr) != StderrKept {
					t.Errorf("kept %d bytes of stderr", len(out.Stderr))
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := Command{Argv: []string{"sh", "-c", tc.script}}
			var c *protocol.Collector
			if tc.collect {
				c = protocol.NewCollector(1000)
				cmd.Stdout = c
			}
			begun := time.Now()
			out, err := Run(context.Background(), cmd)
			if c != nil {
				c.Close()
			}
			if err != nil || out.ExitCode != 0 {
				t.Fatalf("exit %d, err %v, stderr %q", out.ExitCode, err, lastBytes(out.Stderr, 200))
			}
			tc.check(t, out, c)
			hwm := peakRSS(t)
			t.Logf("1 GB in %s; this process's peak RSS so far %d MiB", time.Since(begun).Round(time.Millisecond), hwm>>20)
			if hwm > maxRSS {
				t.Errorf("peak RSS %d MiB, want under %d MiB", hwm>>20, maxRSS>>20)
			}
		})
	}
}

// peakRSS is this process's peak resident memory (VmHWM).
func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
