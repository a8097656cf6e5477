package results

import "testing"

// TestBrowserStepsGainTheDoublesStep: a set written when the browsers
// declared their coarsening alone reads with today's declaration (the
// timeOrigin + now() double's 256 ns on top), and its trust is re-marked:
// a Firefox spawn 20.224 µs after its join reading (as two were in the
// study) is trusted, one 20.3 µs after it is not, and a Node.js step
// stays 256 ns.
func TestBrowserStepsGainTheDoublesStep(t *testing.T) {
	dir := t.TempDir()
	j := int64(59_648)
	sample := func(host string, step, spawn int64) SpawnSample {
		return SpawnSample{Environment: "e-" + host, Kind: "k", Host: host, Mode: "sequential", N: 1000, Process: int32(spawn % 1000),
			SpawnNS: spawn, JoinedNS: &j, ClockStepNS: step, ClockTrusted: false}
	}
	set := &Set{
		Samples: []SpawnSample{
			sample("firefox", 20_000, j+20_224),
			sample("firefox", 20_000, j+20_300),
			sample("chromium", 5_000, j+5_100),
			sample("node", 256, j+300),
		},
		Runs:       []ProcessRun{{Environment: "e-firefox", Kind: "k", Host: "firefox", Mode: "sequential", N: 1000, Status: StatusOK, ClockStepNS: 20_000}},
		Provenance: Provenance{Invocations: []Invocation{{ID: 1, Command: "run"}}},
	}
	if err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		step    int64
		trusted bool
	}{{20_256, true}, {20_256, false}, {5_256, true}, {256, false}}
	for i, w := range want {
		s := got.Samples[i]
		if s.ClockStepNS != w.step || s.ClockTrusted != w.trusted {
			t.Errorf("%s spawn %d after its join: step %d, trusted %v; want step %d, trusted %v",
				s.Host, s.SpawnNS-j, s.ClockStepNS, s.ClockTrusted, w.step, w.trusted)
		}
	}
	if got.Runs[0].ClockStepNS != 20_256 {
		t.Errorf("the Firefox run's step reads as %d, want 20256", got.Runs[0].ClockStepNS)
	}
}
