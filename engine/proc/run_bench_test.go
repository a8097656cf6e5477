package proc

import (
	"context"
	"testing"
)

// BenchmarkRun: what holding a tree costs a trivial process, start to
// end, in this binary's containment (a cgroup as root; a guardian as an
// ordinary user, or with SPAWNBENCH_TEST_GUARDIAN=1).
//
//	go test ./engine/proc/ -run X -bench Run
func BenchmarkRun(b *testing.B) {
	kind, _ := Containment()
	b.Log("containment: ", kind)
	for b.Loop() {
		if out, err := Run(context.Background(), Command{Argv: []string{"true"}}); err != nil || out.ExitCode != 0 {
			b.Fatal(out, err)
		}
	}
}
