package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A start hook is called once per start, before the fork, with threads
// of the process that becomes the main process's parent: the supervisor's
// own thread in a cgroup, its guardian's threads otherwise (the same test
// again under guardians).
func TestStartHookNamesTheForker(t *testing.T) {
	if os.Getenv(guardianTestVar) == "" {
		t.Run("guardian", func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestStartHookNamesTheForker$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), guardianTestVar+"=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestStartHookNamesTheForker") {
				t.Fatalf("under guardians: %v\n%s", err, out)
			}
		})
	}
	var calls [][]int
	ctx := WithStartHook(context.Background(), func(forkers []int) { calls = append(calls, append([]int(nil), forkers...)) })
	s, err := Start(ctx, Command{Argv: []string{"sleep", "5"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if len(calls) != 1 || len(calls[0]) == 0 {
		t.Fatalf("hook calls %v, want one with the forking threads", calls)
	}
	st, ok := readStat(s.Pid)
	if !ok {
		t.Fatalf("cannot read the main process %d", s.Pid)
	}
	for _, tid := range calls[0] {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", st.ppid, tid)); err != nil {
			t.Errorf("forker %d is not a thread of the main process's parent %d (%v)", tid, st.ppid, err)
		}
	}
	kind, _ := Containment()
	t.Logf("held by %s: forkers %v, main process %d, its parent %d", kind, calls[0], s.Pid, st.ppid)
}
