package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Overrides replace parts of a spec for a quick look, from the command
// line (`run --processes 2 --n 1,10 --mode sequential`), without editing
// the CUE. They are part of what was measured: Apply folds them into the
// spec's hash, so a run resumes only with the same overrides, and the
// runner records them in the invocation's provenance.
type Overrides struct {
	// Processes, when positive, gives every cell exactly that many
	// measured processes, whatever the spec's sample policy.
	Processes int
	// N, when set, replaces the spec's and every environment's thread
	// counts.
	N []int
	// Modes, when set, replaces the spec's modes.
	Modes []string
	// Occasions, when positive, replaces schedule.occasions.
	Occasions int
}

// Empty is true when nothing is overridden.
func (o Overrides) Empty() bool {
	return o.Processes <= 0 && len(o.N) == 0 && len(o.Modes) == 0 && o.Occasions <= 0
}

// String is the overrides as flags, e.g. "--processes 2 --n 1,10".
func (o Overrides) String() string {
	var parts []string
	if o.Processes > 0 {
		parts = append(parts, "--processes "+strconv.Itoa(o.Processes))
	}
	if len(o.N) > 0 {
		ns := make([]string, len(o.N))
		for i, n := range o.N {
			ns[i] = strconv.Itoa(n)
		}
		parts = append(parts, "--n "+strings.Join(ns, ","))
	}
	if len(o.Modes) > 0 {
		parts = append(parts, "--mode "+strings.Join(o.Modes, ","))
	}
	if o.Occasions > 0 {
		parts = append(parts, "--occasions "+strconv.Itoa(o.Occasions))
	}
	return strings.Join(parts, " ")
}

// Apply checks the overrides against the schema's bounds and applies
// them to s; an override out of bounds is an input error.
func (o Overrides) Apply(s *Spec) error {
	if o.Empty() {
		return nil
	}
	if o.Processes < 0 || o.Processes > 100000 {
		return inputErrorf("--processes %d: give a count from 1 to 100000", o.Processes)
	}
	for _, n := range o.N {
		if n <= 0 || n > 1000000 {
			return inputErrorf("--n %d: every thread count must be from 1 to 1000000", n)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(o.N)))) != len(o.N) {
		return inputErrorf("%s: give each thread count once", o.String())
	}
	if o.Occasions < 0 || o.Occasions > 1000 {
		return inputErrorf("--occasions %d: give a count from 1 to 1000", o.Occasions)
	}
	if o.Occasions > 0 {
		s.Schedule.Occasions = o.Occasions
	}
	for _, m := range o.Modes {
		if m != "sequential" && m != "parallel" {
			return inputErrorf("--mode %s: the modes are sequential and parallel", m)
		}
	}
	if len(o.Modes) > 0 {
		s.Modes = slices.Clone(o.Modes)
	}
	if len(o.N) > 0 {
		s.N = slices.Clone(o.N)
	}
	for i := range s.Environments {
		e := &s.Environments[i]
		if len(o.N) > 0 {
			e.N = nil
		}
		if o.Processes > 0 {
			procs, one := o.Processes, 1
			e.Processes, e.Min = &procs, &one
		}
	}
	if o.Processes > 0 {
		// Exactly that many: no adaptive rounds, the bottom line's neither.
		s.Samples.Processes, s.Samples.Min, s.Samples.Adaptive, s.BottomLine = o.Processes, 1, false, nil
	}
	h := sha256.Sum256([]byte(s.Hash + "\x00" + o.String()))
	s.Hash = hex.EncodeToString(h[:])
	s.Overrides = o.String()
	return nil
}

// ParseNs reads --n's list, e.g. "1,10,100".
func ParseNs(text string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, inputErrorf("--n %s: give thread counts separated by commas, e.g. --n 1,10,100", text)
		}
		out = append(out, n)
	}
	return out, nil
}
