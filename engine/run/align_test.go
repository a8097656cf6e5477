package run

import (
	"testing"

	"spawnbench/engine/protocol"
	"spawnbench/engine/trace"
)

// A #sync reading of a whole microsecond is what a coarse real-time
// clock gives every time and a nanosecond one once in a thousand: the
// process is still traced, its alignment good to a microsecond more than
// the same reading a nanosecond later.
func TestWholeMicrosecondSyncIsAlignedToTheMicrosecond(t *testing.T) {
	t.Parallel()
	// The host's CLOCK_REALTIME is CLOCK_MONOTONIC + 1e18, read within
	// 100 ns; the payload's clock is 5 ms behind CLOCK_MONOTONIC.
	host := trace.Reading{Before: 2_000_000, At: 1e18 + 2_000_050, After: 2_000_100}
	align := func(realtime int64) trace.Clock {
		t.Helper()
		sync := &protocol.Sync{BeforeNS: realtime - 1e18 - 5_000_000 - 50, RealtimeNS: realtime, AfterNS: realtime - 1e18 - 5_000_000 + 50}
		c, slack, note := alignClock("wazero", sync, nil, host, host, 1)
		if note != "" || slack <= c.ErrNS {
			t.Fatalf("#sync at %d ns: note %q, slack %d for an error of %d; want it aligned", realtime, note, slack, c.ErrNS)
		}
		return c
	}
	fine, whole := align(1e18+3_000_001), align(1e18+3_000_000)
	if whole.ErrNS != fine.ErrNS+1000 || whole.OffsetNS != fine.OffsetNS {
		t.Errorf("a whole microsecond aligns as %+v, a nanosecond later as %+v; want the same offset, its error 1 µs wider", whole, fine)
	}
	if fine.OffsetNS != 5_000_000 {
		t.Errorf("offset %d ns, want the payload's 5 ms", fine.OffsetNS)
	}
}
