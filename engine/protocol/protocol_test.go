package protocol

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func format(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%d", l.SpawnNS)
		if l.CreateNS != nil {
			fmt.Fprintf(&b, " c%d", *l.CreateNS)
		}
		if l.JoinedNS != nil {
			fmt.Fprintf(&b, " j%d", *l.JoinedNS)
		}
		if l.ParentCPU != nil || l.ChildCPU != nil {
			fmt.Fprintf(&b, " cpu%s/%s", cpuText(l.ParentCPU), cpuText(l.ChildCPU))
		}
		b.WriteString(";")
	}
	return b.String()
}

func cpuText(c *int32) string {
	if c == nil {
		return "?"
	}
	return fmt.Sprint(*c)
}

func TestProtocolParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // format(lines)
		err      string // substring of the error; "" for none
	}{
		{"three fields", "10 20 30\n11 21 31\n", "10 c20 j30;11 c21 j31;", ""},
		{"one and two fields", "5\n6 7\n", "5;6 c7;", ""},
		{"comments and blanks", "# header\n\n  \n1 2 3\n#x 1 2\n", "1 c2 j3;", ""},
		{"spaces, tabs and CRLF", "  1\t2  3 \r\n", "1 c2 j3;", ""},
		{"negative values", "-5 0 7\n", "-5 c0 j7;", ""},
		{"no final line end", "1 2 3\n4 5 6", "1 c2 j3;4 c5 j6;", ""},
		{"empty", "", "", ""},
		{"four fields", "1 2 3\n1 2 3 4\n9\n", "1 c2 j3;", "stdout line 2 has 4 fields: the CPUs come in pairs"},
		{"CPU fields", "1 2 3 0 1\n4 5 6 -1 7\n7 8 9 -1 -1\n", "1 c2 j3 cpu0/1;4 c5 j6 cpu?/7;7 c8 j9;", ""},
		{"six fields", "1 2 3 0 1 2\n", "", "stdout line 1 has 6 fields, want at most 5"},
		{"a CPU below -1", "1 2 3 -2 0\n", "", "stdout line 1 has a CPU that is neither -1 (unknown) nor a CPU number"},
		{"cpu directives after their lines", "1 2 3\n4 5 6\n#cpu 2 1 0\n#cpu 1 0 0\n", "1 c2 j3 cpu0/0;4 c5 j6 cpu1/0;", ""},
		{"a cpu directive before its line", "#cpu 1 -1 3\n1 2 3\n", "1 c2 j3 cpu?/3;", ""},
		{"a directive overrides the line's CPUs", "1 2 3 0 0\n#cpu 1 1 1\n", "1 c2 j3 cpu1/1;", ""},
		{"a directive for a spawn never printed", "1 2 3\n#cpu 5 0 1\n", "1 c2 j3;", ""},
		{"other comments starting with cpu", "#cpus are ours\n#cpu\n1\n", "1;", ""},
		{"a bad cpu directive", "1\n#cpu 1 x 0\n", "1;", `stdout line 2 is not a CPU directive (#cpu K parent_cpu child_cpu`},
		{"a cpu directive for spawn 0", "#cpu 0 1 1\n", "", "stdout line 1 is not a CPU directive"},
		{"a cpu directive with two fields", "#cpu 1 1\n", "", "stdout line 1 is not a CPU directive"},
		{"not integers", "# c\n1 x 3\n", "", `stdout line 2 is not integers (spawn_ns create_ns joined_ns parent_cpu child_cpu): "1 x 3"`},
		{"overflowing int64", "99999999999999999999\n", "", "stdout line 1 is not integers"},
		{"int64 limits", "9223372036854775807 -9223372036854775808 +1\n", "9223372036854775807 c-9223372036854775808 j1;", ""},
		{"just past int64", "9223372036854775808\n", "", "stdout line 1 is not integers"},
		{"lone sign", "- 1\n", "", "stdout line 1 is not integers"},
		{"overlong line", "1\n" + strings.Repeat("7", MaxLineBytes+1) + "\n2\n", "1;", fmt.Sprintf("stdout line 2 is longer than %d bytes", MaxLineBytes)},
		{"overlong last line", "1\n2\n" + strings.Repeat("#", MaxLineBytes+1), "1;2;", "stdout line 3 is longer"},
		{"longest line allowed", "#" + strings.Repeat(" ", MaxLineBytes-1) + "\n3\n", "3;", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := Parse([]byte(tc.in))
			if got := format(lines); got != tc.want {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v, want one saying %q", err, tc.err)
			}
		})
	}
}

// TestCollectorStreams: however the output is cut into writes, the
// Collector sees the same lines as Parse on the whole.
func TestProtocolCollectorStreams(t *testing.T) {
	in := "# spawnbench\n1 2 3\n\n40 50 60\n700 800 900\n" + "#" + strings.Repeat("c", 3000) + "\n8"
	want, wantErr := Parse([]byte(in))
	for _, chunk := range []int{1, 2, 3, 7, 64, 4096, len(in)} {
		t.Run(fmt.Sprint("chunk ", chunk), func(t *testing.T) {
			c := NewCollector(-1)
			for b := []byte(in); len(b) > 0; {
				k := min(chunk, len(b))
				if n, err := c.Write(b[:k]); n != k || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				b = b[k:]
			}
			c.Close()
			if format(c.Lines()) != format(want) || c.Err() != wantErr {
				t.Errorf("lines %q err %v, want %q err %v", format(c.Lines()), c.Err(), format(want), wantErr)
			}
		})
	}
}

func TestProtocolCollectorBound(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max       int
		in        string
		wantLines string
		wantExtra int
		err       string
	}{
		{"under", 3, "1\n2\n", "1;2;", 0, ""},
		{"exactly", 2, "1\n2\n", "1;2;", 0, ""},
		{"over", 2, "1\n# c\n2\n3\n4\n", "1;2;", 2, ""},
		{"zero kept", 0, "1\n2\n", "", 2, ""},
		{"malformed beyond max is still an error", 1, "1\n2\nx\n3\n", "1;", 1, "stdout line 3 is not integers"},
		{"directives beyond max are dropped", 1, "1\n2\n#cpu 2 0 0\n#cpu 1 1 0\n", "1 cpu1/0;", 1, ""},
		{"a bad directive beyond max is still an error", 1, "1\n2\n#cpu 2 -5 0\n", "1;", 1, "stdout line 3 is not a CPU directive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(tc.max)
			c.Write([]byte(tc.in))
			c.Close()
			if got := format(c.Lines()); got != tc.wantLines || c.Extra() != tc.wantExtra {
				t.Errorf("lines %q extra %d, want %q extra %d", got, c.Extra(), tc.wantLines, tc.wantExtra)
			}
			if err := c.Err(); (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestCollectorMemory: a long stream of spawn lines, and one endless line,
// leave the Collector holding what max and MaxLineBytes allow, no more.
func TestProtocolCollectorMemory(t *testing.T) {
	line := []byte("123456 234567 345678\n")
	block := bytes.Repeat(line, 4096)
	c := NewCollector(100)
	const blocks = 256 // about 22 MB
	for range blocks {
		c.Write(block)
	}
	c.Close()
	if len(c.Lines()) != 100 || c.Extra() != blocks*4096-100 || c.Err() != nil {
		t.Errorf("lines %d extra %d err %v", len(c.Lines()), c.Extra(), c.Err())
	}
	if cap(c.partial) > MaxLineBytes {
		t.Errorf("partial line buffer grew to %d bytes", cap(c.partial))
	}

	c = NewCollector(100)
	zeros := make([]byte, 1<<20)
	for range 32 {
		c.Write(zeros)
		if cap(c.partial) > MaxLineBytes {
			t.Fatalf("an unfinished line grew the buffer to %d bytes", cap(c.partial))
		}
	}
	c.Close()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "stdout line 1 is longer") {
		t.Errorf("err = %v", err)
	}
}

func TestProtocolWritesAfterCloseAreIgnored(t *testing.T) {
	c := NewCollector(-1)
	c.Write([]byte("1\n2"))
	c.Close()
	c.Write([]byte("3\n4\n"))
	c.Close()
	if got := format(c.Lines()); got != "1;2;" {
		t.Errorf("lines = %q", got)
	}
}

// BenchmarkCollector: the cost of streaming spawn lines past max, which
// is what a benchmark that prints too much costs spawnbench.
//
//	go test ./engine/protocol/ -run X -bench Collector
func BenchmarkCollector(b *testing.B) {
	block := bytes.Repeat([]byte("123456 234567 345678\n"), 4096)
	b.SetBytes(int64(len(block)))
	c := NewCollector(1000)
	for b.Loop() {
		c.Write(block)
	}
}

func TestClockDirective(t *testing.T) {
	c := NewCollector(1)
	_, _ = c.Write([]byte("# a comment\n#clock 24 19\n1000000\n"))
	c.Close()
	if f := c.Clock(); c.Err() != nil || f == nil || f.StepNS != 24 || f.ReadNS != 19 || len(c.Lines()) != 1 {
		t.Errorf("clock %+v, err %v, %d lines; want step 24, read 19, one line", f, c.Err(), len(c.Lines()))
	}
	bad := NewCollector(1)
	_, _ = bad.Write([]byte("#clock fast\n"))
	bad.Close()
	if bad.Err() == nil || !strings.Contains(bad.Err().Error(), "not a clock directive") {
		t.Errorf("malformed directive: err %v", bad.Err())
	}
	if none := NewCollector(1); none.Clock() != nil {
		t.Error("no directive, yet clock facts")
	}
}

// "#phase" directives attach to their spawn in the order printed, before
// or after its line; a spawn's phases beyond MaxPhases, and spawns beyond
// those kept, are dropped; a bad one is an error naming its line.
func TestPhaseDirective(t *testing.T) {
	var in strings.Builder
	in.WriteString("#phase 1 thread_start 100\n10 20 30\n11 21 31\n")
	in.WriteString(PhaseDirective(1, "store", 150))
	in.WriteString(PhaseDirective(3, "store", 9)) // spawn 3 is beyond max
	for i := range MaxPhases + 2 {
		in.WriteString(PhaseDirective(2, fmt.Sprintf("p%d", i), int64(i)))
	}
	c := NewCollector(2)
	_, _ = c.Write([]byte(in.String()))
	c.Close()
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	lines := c.Lines()
	if got := fmt.Sprint(lines[0].Phases); got != "[{thread_start 100} {store 150}]" {
		t.Errorf("spawn 1's phases %s", got)
	}
	if len(lines[1].Phases) != MaxPhases || lines[1].Phases[0] != (Phase{"p0", 0}) {
		t.Errorf("spawn 2's phases %v, want the first %d", lines[1].Phases, MaxPhases)
	}
	for _, bad := range []string{"#phase 0 a 1", "#phase 1 A 1", "#phase 1 a -1", "#phase 1 a", "#phase 1 a-b 1"} {
		if _, err := Parse([]byte("1\n" + bad + "\n")); err == nil || !strings.Contains(err.Error(), "stdout line 2 is not a phase directive") {
			t.Errorf("%q: err %v, want a bad phase directive on line 2", bad, err)
		}
	}
}
