package run

import (
	"errors"
	"strconv"
	"testing"

	"spawnbench/engine/inputerr"

	"golang.org/x/sys/unix"
)

func itoa32(n int32) string { return strconv.Itoa(int(n)) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func asInput(err error, in **inputerr.Error) bool { return errors.As(err, in) }

func availableCPUs(t *testing.T) []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var out []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
