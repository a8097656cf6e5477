package protocol

import (
	"strings"
	"testing"
)

// "#at" gives each spawn its call on the benchmark's clock, in whatever
// order the lines come; "#sync" and "#mono" keep their tightest reading;
// a malformed one names its line; an older reader's output (no
// directives) parses as before, with no call times.
func TestTraceDirectives(t *testing.T) {
	c := NewCollector(2)
	_, _ = c.Write([]byte("#at 2 2000\n10 20 30\n11 21 31\n#at 1 1000\n#at 3 3000\n" +
		"#sync 100 5000 180\n#sync 100 5000 140\n#sync 100 5000 900\n#mono 7 50 9\n"))
	c.Close()
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	lines := c.Lines()
	if len(lines) != 2 || lines[0].AtNS == nil || *lines[0].AtNS != 1000 || lines[1].AtNS == nil || *lines[1].AtNS != 2000 {
		t.Fatalf("lines = %+v, want calls 1000 and 2000", lines)
	}
	if s := c.Sync(); s == nil || s.AfterNS != 140 {
		t.Errorf("sync = %+v, want the tightest (100 5000 140)", s)
	}
	if m := c.Mono(); m == nil || m.BeforeNS != 7 || m.RealtimeNS != 50 || m.AfterNS != 9 {
		t.Errorf("mono = %+v, want 7 50 9", m)
	}
	for _, bad := range []string{"#at 0 5\n", "#at 1\n", "#at 1 x\n", "#sync 5 1 4\n", "#mono 1 2\n"} {
		c := NewCollector(-1)
		_, _ = c.Write([]byte("1 2 3\n" + bad))
		c.Close()
		if err := c.Err(); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: err = %v, want one naming line 2", bad, err)
		}
	}
	old, err := Parse([]byte("1 2 3\n# a comment\n"))
	if err != nil || len(old) != 1 || old[0].AtNS != nil {
		t.Errorf("an output without directives: %+v, %v", old, err)
	}
}
