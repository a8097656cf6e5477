package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// format is where an event's fields lie in its record.
type format struct {
	id     uint16
	fields map[string]field
}

type field struct{ offset, size int }

// parseFormat reads an events/<system>/<event>/format file.
func parseFormat(text []byte) (format, error) {
	f := format{fields: map[string]field{}}
	idSeen := false
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "ID:"); ok {
			id, err := strconv.ParseUint(strings.TrimSpace(v), 10, 16)
			if err != nil {
				return f, fmt.Errorf("bad ID line %q", line)
			}
			f.id, idSeen = uint16(id), true
			continue
		}
		decl, ok := strings.CutPrefix(line, "field:")
		if !ok {
			continue
		}
		parts := strings.Split(decl, ";")
		if len(parts) < 3 {
			continue
		}
		words := strings.Fields(parts[0])
		if len(words) == 0 {
			continue
		}
		name := words[len(words)-1]
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		var fl field
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), ":")
			n, err := strconv.Atoi(v)
			switch {
			case k == "offset" && err == nil:
				fl.offset = n
			case k == "size" && err == nil:
				fl.size = n
			}
		}
		f.fields[name] = fl
	}
	if !idSeen {
		return f, errors.New("no ID")
	}
	return f, nil
}

// int reads an integer field of 1, 2, 4 or 8 bytes (signed where 4).
func (f format) int(rec []byte, name string) (int64, bool) {
	fl, ok := f.fields[name]
	if !ok || fl.offset+fl.size > len(rec) {
		return 0, false
	}
	b := rec[fl.offset : fl.offset+fl.size]
	switch fl.size {
	case 1:
		return int64(b[0]), true
	case 2:
		return int64(binary.LittleEndian.Uint16(b)), true
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case 8:
		return int64(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}

// str reads a char array field.
func (f format) str(rec []byte, name string) string {
	fl, ok := f.fields[name]
	if !ok || fl.offset+fl.size > len(rec) {
		return ""
	}
	b := rec[fl.offset : fl.offset+fl.size]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// event is one recorded event, decoded.
type event struct {
	ts   int64 // trace clock (CLOCK_MONOTONIC) ns
	cpu  int
	kind int // evNewTask, evWakeupNew, evSwitch
	// by is the task current when it was recorded (common_pid).
	by int
	// pid: the new task (newtask), the woken task (wakeup_new), next_pid
	// (switch); prev: prev_pid (switch).
	pid, prev int
	comm      string
	flags     uint64
}

const (
	evNewTask = iota
	evWakeupNew
	evSwitch
)

// read reads every CPU's raw buffer of the stopped instance, the events
// it lost, and until when it holds every event: the earliest last event
// of a CPU whose buffer filled up (math.MaxInt64 when none did).
func (s *Session) read() ([]event, int64, int64, error) {
	subbuf := 4096
	if b, err := os.ReadFile(filepath.Join(s.dir, "buffer_subbuf_size_kb")); err == nil {
		if kb, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && kb > 0 {
			subbuf = kb * 1024
		}
	}
	cpus, err := filepath.Glob(filepath.Join(s.dir, "per_cpu", "cpu*"))
	if err != nil || len(cpus) == 0 {
		return nil, 0, 0, fmt.Errorf("read the trace: no per_cpu buffers in %s", s.dir)
	}
	byID := map[uint16]int{}
	var fmts [3]format
	for i, ev := range events {
		fmts[i] = s.t.formats[ev]
		byID[fmts[i].id] = i
	}
	var out []event
	var lost int64
	complete := int64(math.MaxInt64)
	for _, dir := range cpus {
		cpu, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "cpu"))
		if err != nil {
			continue
		}
		cpuLost := statsLost(filepath.Join(dir, "stats"))
		lost += cpuLost
		fd, err := unix.Open(filepath.Join(dir, "trace_pipe_raw"), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("read the trace of CPU %d: %w", cpu, err)
		}
		first := len(out)
		page := make([]byte, subbuf)
		for {
			n, err := unix.Read(fd, page)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || n <= 0 {
				break // EAGAIN: the buffer is empty
			}
			out = parsePage(page[:n], cpu, byID, &fmts, out)
		}
		unix.Close(fd)
		if cpuLost > 0 {
			last := int64(0) // nothing kept: nothing is known
			for _, e := range out[first:] {
				last = max(last, e.ts)
			}
			complete = min(complete, last)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ts < out[j].ts })
	return out, lost, complete, nil
}

// statsLost sums what a CPU buffer's stats say it lost.
func statsLost(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "overrun", "dropped events":
			if x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				n += x
			}
		}
	}
	return n
}

// Ring buffer record types (the kernel's ring_buffer.h; events/header_event).
const (
	typePadding    = 29
	typeTimeExtend = 30
	typeTimeStamp  = 31
	tsShift        = 27
	commitMask     = 1<<27 - 1
	pageHeader     = 16 // u64 timestamp, local_t commit
)

// parsePage decodes one sub-buffer page of trace_pipe_raw, appending the
// events of byID's kinds to out.
func parsePage(page []byte, cpu int, byID map[uint16]int, fmts *[3]format, out []event) []event {
	if len(page) < pageHeader {
		return out
	}
	ts := int64(binary.LittleEndian.Uint64(page[0:8]))
	size := int(binary.LittleEndian.Uint64(page[8:16]) & commitMask)
	data := page[pageHeader:]
	if size > len(data) {
		size = len(data)
	}
	data = data[:size]
	for off := 0; off+4 <= len(data); {
		hdr := binary.LittleEndian.Uint32(data[off:])
		typeLen, delta := int(hdr&31), int64(hdr>>5)
		var rec []byte
		switch {
		case typeLen == typePadding:
			if delta == 0 || off+8 > len(data) {
				return out // the rest of the page is padding
			}
			ts += delta
			off += 4 + int(binary.LittleEndian.Uint32(data[off+4:]))
			continue
		case typeLen == typeTimeExtend:
			if off+8 > len(data) {
				return out
			}
			ts += int64(binary.LittleEndian.Uint32(data[off+4:]))<<tsShift + delta
			off += 8
			continue
		case typeLen == typeTimeStamp:
			if off+8 > len(data) {
				return out
			}
			abs := int64(binary.LittleEndian.Uint32(data[off+4:]))<<tsShift | delta
			// Only the low 59 bits are stored; the rest is the page's.
			const low = 1<<59 - 1
			ts = ts&^low | abs&low
			off += 8
			continue
		case typeLen == 0:
			if off+8 > len(data) {
				return out
			}
			n := int(binary.LittleEndian.Uint32(data[off+4:])) - 4
			if n < 0 || off+8+n > len(data) {
				return out
			}
			ts += delta
			rec = data[off+8 : off+8+n]
			off += 8 + (n+3)&^3
		default:
			n := typeLen * 4
			if off+4+n > len(data) {
				return out
			}
			ts += delta
			rec = data[off+4 : off+4+n]
			off += 4 + n
		}
		if len(rec) < 8 {
			continue
		}
		kind, ok := byID[binary.LittleEndian.Uint16(rec[0:2])]
		if !ok {
			continue
		}
		f := fmts[kind]
		e := event{ts: ts, cpu: cpu, kind: kind, by: int(int32(binary.LittleEndian.Uint32(rec[4:8])))}
		switch kind {
		case evNewTask:
			pid, _ := f.int(rec, "pid")
			flags, _ := f.int(rec, "clone_flags")
			e.pid, e.flags, e.comm = int(pid), uint64(flags), f.str(rec, "comm")
		case evWakeupNew:
			pid, _ := f.int(rec, "pid")
			e.pid = int(pid)
		case evSwitch:
			next, _ := f.int(rec, "next_pid")
			prev, _ := f.int(rec, "prev_pid")
			e.pid, e.prev = int(next), int(prev)
		}
		out = append(out, e)
	}
	return out
}
