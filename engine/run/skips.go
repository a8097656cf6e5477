package run

import (
	"errors"
	"fmt"
	"strings"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/spec"
)

// A run whose every environment was skipped measured nothing: it fails,
// with each skip's reason, rather than leaving an empty set behind a
// "results in DIR". The cause is the input (exit 2) when every skip is an
// environment that cannot be set up or a toolchain that is missing; a
// failed build may be the machine's, and exits 1.

// skipKind says what made an environment be skipped.
type skipKind int

const (
	skipInput skipKind = iota // bad settings, a missing or unrunnable toolchain
	skipBuild                 // the build failed
)

// errNothingMeasured marks the error of a run that measured nothing.
var errNothingMeasured = errors.New("nothing was measured")

func isNothingMeasured(err error) bool { return errors.Is(err, errNothingMeasured) }

// allSkipped says whether every environment of envs was skipped.
func allSkipped(envs []spec.EnvironmentSpec, prep map[string]prepared) bool {
	for _, es := range envs {
		if prep[es.Name].skip == "" {
			return false
		}
	}
	return true
}

// nothingMeasured is the error of a run that measured nothing, each
// environment's skip named.
func nothingMeasured(envs []spec.EnvironmentSpec, prep map[string]prepared) error {
	var b strings.Builder
	input := true
	seen := map[string]bool{}
	for _, es := range envs {
		if seen[es.Name] {
			continue
		}
		seen[es.Name] = true
		p := prep[es.Name]
		if p.skip == "" {
			continue
		}
		input = input && p.skipKind == skipInput
		fmt.Fprintf(&b, "\n  %s: %s", es.Name, firstLine(p.skip))
	}
	if b.Len() == 0 {
		return fmt.Errorf("%w: the plan has no process to run", errNothingMeasured)
	}
	msg := fmt.Sprintf("%s: every environment was skipped:%s\nfix what each line names, or leave those environments out with --env", errNothingMeasured, b.String())
	if input {
		return nothingMeasuredInput{inputerr.New("%s", msg)}
	}
	return nothingMeasuredInput{errors.New(msg)}
}

// nothingMeasuredInput is a nothing-measured error, and an input error
// when its cause is the input.
type nothingMeasuredInput struct{ err error }

func (e nothingMeasuredInput) Error() string   { return e.err.Error() }
func (e nothingMeasuredInput) Unwrap() []error { return []error{e.err, errNothingMeasured} }
