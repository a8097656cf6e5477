package proc

import (
	"io"
	"os"
)

// StdoutKept bounds the standard output captured into Outcome.Stdout when
// Command.Stdout is nil; the rest is counted in Outcome.StdoutDropped. The
// start is kept: that is where the protocol's lines are.
const StdoutKept = 16 << 20

// StderrKept bounds Outcome.Stderr. The end is kept: it is the end that
// says why a process died (and where Chromium logs a crashed page).
const StderrKept = 1 << 20

// headBuffer keeps the first max bytes written to it and counts the rest.
type headBuffer struct {
	buf     []byte
	max     int
	dropped int64
}

func (b *headBuffer) Write(p []byte) (int, error) {
	keep := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	b.dropped += int64(len(p) - keep)
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it, in a ring, so a
// process writing gigabytes costs a copy per byte and no more.
type tailBuffer struct {
	ring  []byte
	max   int
	next  int // where the next byte goes once the ring is full
	total int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if len(p) >= b.max {
		b.ring = append(b.ring[:0], p[len(p)-b.max:]...)
		b.next = 0
		return n, nil
	}
	if room := b.max - len(b.ring); room > 0 {
		k := min(room, len(p))
		b.ring = append(b.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(b.ring[b.next:], p)
		b.next = (b.next + k) % b.max
		p = p[k:]
	}
	return n, nil
}

// Bytes returns what is kept, oldest first.
func (b *tailBuffer) Bytes() []byte {
	out := make([]byte, 0, len(b.ring))
	if len(b.ring) < b.max {
		return append(out, b.ring...)
	}
	out = append(out, b.ring[b.next:]...)
	return append(out, b.ring[:b.next]...)
}

// drain copies r to w until r ends, counting the bytes into total (when
// not nil), then closes r. A failing w is not allowed to stop the copy: a
// process whose reader stopped reading would block on a full pipe.
func drain(r *os.File, w io.Writer, total *int64, done chan<- struct{}) {
	defer close(done)
	defer r.Close()
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if total != nil {
			*total += int64(n)
		}
		if n > 0 && w != nil {
			if _, werr := w.Write(buf[:n]); werr != nil {
				w = nil
			}
		}
		if err != nil {
			return
		}
	}
}
