package spec

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"time"
)

// A spec is a program: CUE comprehensions can ask for any amount of time
// and memory. Evaluation runs under a watch that refuses a spec passing
// either bound (exit 2, as bad input) rather than leaving spawnbench
// silent for minutes or taking the machine's memory; the abandoned
// evaluation ends with the command. A slow evaluation says so while it
// runs.
var (
	// EvalTimeout bounds the evaluation of one spec.
	EvalTimeout = 30 * time.Second
	// EvalMemory bounds the heap the evaluation of one spec may add.
	EvalMemory uint64 = 1 << 30
	// EvalProgress receives a line when evaluation takes longer than
	// evalNotice; nil for none.
	EvalProgress io.Writer = os.Stderr
)

const (
	evalNotice = 3 * time.Second
	evalPoll   = 20 * time.Millisecond
)

// bounded runs eval under EvalTimeout and EvalMemory.
func bounded(path string, eval func() (*Spec, error)) (*Spec, error) {
	type result struct {
		s   *Spec
		err error
	}
	done := make(chan result, 1)
	base := heapBytes()
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
			if heap := heapBytes(); heap > base && heap-base > EvalMemory {
				return nil, inputErrorf("spec %s: its evaluation took more than %d MiB of memory (after %s), so it was stopped; a comprehension or list in it is likely far larger than meant: make it smaller", path, EvalMemory>>20, took.Round(time.Millisecond))
			}
			if took > EvalTimeout {
				return nil, inputErrorf("spec %s: its evaluation took longer than %s, so it was stopped; a comprehension or list in it is likely far larger than meant: make it smaller", path, EvalTimeout)
			}
			if !noticed && took > evalNotice && EvalProgress != nil {
				noticed = true
				fmt.Fprintf(EvalProgress, "spawnbench: spec %s: evaluating for %s (stopped at %s or %d MiB)...", path, took.Round(time.Second), EvalTimeout, EvalMemory>>20)
			}
		}
	}
}

// heapBytes is the Go heap's live and not yet swept objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
