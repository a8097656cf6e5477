package proc

import (
	"os"
	"testing"
)

// BenchmarkScan: the cost of one walk of /proc, which a running tree pays
// on a schedule (firstScan, doubling to lastScan).
//
//	go test ./engine/proc/ -run X -bench Scan
func BenchmarkScan(b *testing.B) {
	t := newTree(os.Getpid(), newToken())
	for b.Loop() {
		t.scan()
	}
}
