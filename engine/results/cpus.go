package results

import (
	"encoding/json"
	"strconv"
	"strings"
)

// CPUList is a set of CPU numbers, in order: a process's pinning or the
// CPUs it was allowed. Empty means none (no pinning) or unknown.
type CPUList []int32

// String is the list as "0,1".
func (l CPUList) String() string {
	parts := make([]string, len(l))
	for i, c := range l {
		parts[i] = strconv.Itoa(int(c))
	}
	return strings.Join(parts, ",")
}

// UnmarshalJSON reads a list, or the text "0,1" of journals written
// before CPU sets were lists.
func (l *CPUList) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err == nil {
		*l = parseCPUList(text)
		return nil
	}
	var v []int32
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*l = v
	return nil
}

// parseCPUList reads "0,1"; text that is not a list of numbers is none.
func parseCPUList(text string) CPUList {
	if text == "" {
		return nil
	}
	var out CPUList
	for _, f := range strings.Split(text, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil
		}
		out = append(out, int32(c))
	}
	return out
}
