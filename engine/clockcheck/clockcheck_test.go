package clockcheck

import (
	"testing"
	"time"

	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
)

// TestCoherenceSlackIsOneFirefoxStep: a Firefox kind's spawn may read up
// to one 20 µs clock step after its parent's join reading, not more;
// every other kind is held to the bracket exactly. The same rule marks
// clock_trusted on the samples.
func TestCoherenceSlackIsOneFirefoxStep(t *testing.T) {
	const joined = 1_000_000
	for _, c := range []struct {
		kind  string
		spawn int64
		pass  bool
	}{
		{"emscripten-firefox", joined, true},
		{"emscripten-firefox", joined + 20_000, true},
		{"emscripten-firefox", joined + 20_001, false},
		{"manual-firefox", joined + 20_000, true},
		{"wasi-threads-firefox", -1, false},
		{"emscripten-chromium", joined, true},
		{"emscripten-chromium", joined + 1, false},
		{"wasmtime-cli", joined + 1, false},
		{"native", joined + 20_000, false},
	} {
		j := int64(joined)
		lines := []protocol.Line{{SpawnNS: 10, JoinedNS: &j}, {SpawnNS: c.spawn, JoinedNS: &j}}
		got := Coherence("e", c.kind, 0, len(lines), results.StatusOK, "", lines, time.Second)
		if got.Pass != c.pass || (got.Violations == 0) != c.pass {
			t.Errorf("%s spawn %d joined %d: pass %v (%d violations, %q), want pass %v",
				c.kind, c.spawn, joined, got.Pass, got.Violations, got.Detail, c.pass)
		}
		set := &results.Set{Samples: []results.SpawnSample{{Environment: "e", Kind: c.kind, SpawnNS: c.spawn, JoinedNS: &j}}}
		results.MarkClockTrust(set)
		if set.Samples[0].ClockTrusted != c.pass {
			t.Errorf("%s spawn %d joined %d: clock_trusted %v, want %v", c.kind, c.spawn, joined, set.Samples[0].ClockTrusted, c.pass)
		}
	}
}
