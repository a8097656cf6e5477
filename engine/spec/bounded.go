package spec

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"time"

	"golang.org/x/sys/unix"
)

// A spec is a program: CUE comprehensions can ask for any amount of time
// and memory. Evaluation runs under a watch that refuses a spec passing
// either bound (exit 2, as bad input) rather than leaving spawnbench
// silent for minutes or taking the machine's memory; the abandoned
// evaluation ends with the command. A slow evaluation says so while it
// runs.
//
// The memory bound is on what the machine gives spawnbench, its resident
// memory (the maximum resident set size of /usr/bin/time -v), not on the
// Go heap alone, which leaves out garbage not yet collected, memory freed
// but not yet returned, and the binary itself: bounding the heap at 1 GiB
// let spawnbench reach 1.24 GiB. The watch is a poll, not a kernel
// limit (under which the Go runtime would crash rather than refuse), so
// it stops an evaluation at three quarters of the bound: the last quarter
// is for what the evaluation allocates before the watch sees it, which
// can be one growth of a large list at once (128 MiB seen) and more than
// one poll's worth on a busy machine (the poll was seen up to 1.3 s late
// at load 9 on 2 cores). The watch allocates nothing itself: a goroutine
// that allocates while the collector runs behind a fast allocator is made
// to help it, and would then poll seconds late.
var (
	// EvalTimeout bounds the evaluation of one spec.
	EvalTimeout = 30 * time.Second
	// EvalMemory bounds spawnbench's resident memory while it evaluates a
	// spec.
	EvalMemory uint64 = 1 << 30
	// EvalProgress receives a line when evaluation takes longer than
	// evalNotice; nil for none.
	EvalProgress io.Writer = os.Stderr
)

const (
	evalNotice = 3 * time.Second
	evalPoll   = 5 * time.Millisecond
)

// bounded runs eval under EvalTimeout and EvalMemory.
func bounded(path string, eval func() (*Spec, error)) (*Spec, error) {
	type result struct {
		s   *Spec
		err error
	}
	done := make(chan result, 1)
	stop := EvalMemory / 4 * 3
	rss := newResident()
	defer rss.close()
	begun := time.Now()
	go func() {
		s, err := eval()
		done <- result{s, err}
	}()
	tick := time.NewTicker(evalPoll)
	defer tick.Stop()
	noticed := false
	for {
		select {
		case r := <-done:
			if noticed && EvalProgress != nil {
				fmt.Fprintf(EvalProgress, " done in %s\n", time.Since(begun).Round(time.Millisecond))
			}
			return r.s, r.err
		case <-tick.C:
			took := time.Since(begun)
			if held := rss.bytes(); held > stop {
				return nil, inputErrorf("spec %s: its evaluation took spawnbench to %d MiB of memory after %s, so it was stopped short of the bound of %d MiB; a comprehension or list in it is likely far larger than meant: make it smaller", path, held>>20, took.Round(time.Millisecond), EvalMemory>>20)
			}
			if took > EvalTimeout {
				return nil, inputErrorf("spec %s: its evaluation took longer than %s, so it was stopped; a comprehension or list in it is likely far larger than meant: make it smaller", path, EvalTimeout)
			}
			if !noticed && took > evalNotice && EvalProgress != nil {
				noticed = true
				fmt.Fprintf(EvalProgress, "spawnbench: spec %s: evaluating for %s (stopped at %s or short of %d MiB)...", path, took.Round(time.Second), EvalTimeout, EvalMemory>>20)
			}
		}
	}
}

// resident reads spawnbench's resident memory without allocating: from
// /proc/self/statm, kept open, or, where that cannot be opened, as the
// memory the Go runtime holds from the kernel (all it mapped less what it
// returned).
type resident struct {
	fd      int // -1 without statm
	buf     []byte
	samples []metrics.Sample
}

func newResident() *resident {
	r := &resident{buf: make([]byte, 128), samples: []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}}
	fd, err := unix.Open("/proc/self/statm", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	r.fd = fd
	return r
}

func (r *resident) close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
}

func (r *resident) bytes() uint64 {
	if r.fd >= 0 {
		// "size resident shared ...", in pages.
		if n, err := unix.Pread(r.fd, r.buf, 0); err == nil {
			f := r.buf[:n]
			if i := bytes.IndexByte(f, ' '); i >= 0 {
				f = f[i+1:]
				if j := bytes.IndexByte(f, ' '); j >= 0 {
					var pages uint64
					for _, c := range f[:j] {
						pages = pages*10 + uint64(c-'0')
					}
					return pages * uint64(unix.Getpagesize())
				}
			}
		}
	}
	metrics.Read(r.samples)
	if r.samples[0].Value.Kind() != metrics.KindUint64 || r.samples[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return r.samples[0].Value.Uint64() - r.samples[1].Value.Uint64()
}
