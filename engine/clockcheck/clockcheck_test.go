package clockcheck

import (
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
)

// TestCoherenceAllowsOneClockStepOnBothBounds: a spawn may read up to one
// step of its host's clock (as the host declares it) before the parent's
// start or after its join reading, not more: 256 ns for the timeOrigin +
// now() double (Node.js), that and 20 µs in Firefox or 5 µs in Chromium,
// 1 ns for the nanosecond clocks. The same rule marks clock_trusted on the samples.
func TestCoherenceAllowsOneClockStepOnBothBounds(t *testing.T) {
	const joined = 1_000_000
	for _, c := range []struct {
		host  string
		step  int64
		spawn int64
		pass  bool
	}{
		{"firefox", 20_256, joined, true},
		{"firefox", 20_256, joined + 20_224, true}, // the study's two in 4000
		{"firefox", 20_256, joined + 20_256, true},
		{"firefox", 20_256, joined + 20_257, false},
		{"firefox", 20_256, -20_256, true},
		{"firefox", 20_256, -20_257, false},
		{"chromium", 5_256, joined + 5_256, true},
		{"chromium", 5_256, joined + 5_257, false},
		{"chromium", 5_256, -5_256, true},
		{"node", 256, joined + 256, true},
		{"node", 256, -256, true},
		{"node", 256, -257, false},
		{"wasmtime-cli", 1, joined + 1, true},
		{"wasmtime-cli", 1, joined + 2, false},
		{"os", 1, -1, true},
		{"os", 1, -2, false},
		{"os", 1, joined + 20_000, false},
	} {
		facts, ok := env.Facts(c.host)
		if !ok || facts.ClockStepNS != c.step {
			t.Fatalf("host %s declares a clock step of %d ns, want %d", c.host, facts.ClockStepNS, c.step)
		}
		j := int64(joined)
		lines := []protocol.Line{{SpawnNS: 10, JoinedNS: &j}, {SpawnNS: c.spawn, JoinedNS: &j}}
		got := Coherence("e", "k", facts.ClockStepNS, 0, len(lines), results.StatusOK, "", lines, time.Second)
		if got.Pass != c.pass || (got.Violations == 0) != c.pass {
			t.Errorf("%s spawn %d joined %d: pass %v (%d violations, %q), want pass %v",
				c.host, c.spawn, joined, got.Pass, got.Violations, got.Detail, c.pass)
		}
		set := &results.Set{Samples: []results.SpawnSample{{Environment: "e", Host: c.host, ClockStepNS: facts.ClockStepNS, SpawnNS: c.spawn, JoinedNS: &j}}}
		results.MarkClockTrust(set)
		if set.Samples[0].ClockTrusted != c.pass {
			t.Errorf("%s spawn %d joined %d: clock_trusted %v, want %v", c.host, c.spawn, joined, set.Samples[0].ClockTrusted, c.pass)
		}
	}
}
