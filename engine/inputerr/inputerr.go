// Package inputerr marks bad input from the user: a spec, a flag, a file.
//
// This package is opinionated: an input error is the user's to fix, so its
// message names the cause and the fix, the CLI exits with status 2 for it,
// and nothing is written; a name it does not know comes with the known
// names nearest to it (Nearest), so a typo is fixed at a glance. Every
// other error is spawnbench's or the machine's. It is a package of its own so that readers of results (report,
// compare) need not import the spec loader, and with it CUE, to raise one.
package inputerr

import (
	"errors"
	"fmt"
)

// Error is bad input from the user.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// New formats an input error.
func New(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Is reports whether err is, or wraps, an input error.
func Is(err error) bool {
	var in *Error
	return errors.As(err, &in)
}
