package run

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrOutputGone is why a session ends when no one reads its output.
var ErrOutputGone = errors.New("the reader of spawnbench's standard output or error is gone")

// WatchOutputs cancels with ErrOutputGone once the reader of one of
// outputs that is a pipe or socket (the process's standard output or
// error) goes away, written to or not: a closed output is an interrupt,
// as Ctrl-C is, and not the death by SIGPIPE it would be at the next
// write. Outputs that are no file (a test's buffer) are not watched.
// Until stop, it watches them in a poll; from its first call to the end
// of the process, SIGPIPE is caught (so a write to a reader that is gone
// fails with EPIPE instead of killing spawnbench before the interrupt is
// recorded). It is caught, not ignored: an ignored SIGPIPE would be
// inherited by every benchmark.
func WatchOutputs(cancel context.CancelCauseFunc, outputs ...io.Writer) (stop func()) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	var fds []unix.PollFd
	for _, out := range outputs {
		f, ok := out.(*os.File)
		if !ok {
			continue
		}
		fd := int(f.Fd())
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && (st.Mode&unix.S_IFMT == unix.S_IFIFO || st.Mode&unix.S_IFMT == unix.S_IFSOCK) {
			// Events 0: poll reports only POLLERR (a pipe without readers)
			// and POLLHUP (a socket shut down).
			fds = append(fds, unix.PollFd{Fd: int32(fd)})
		}
	}
	if len(fds) == 0 {
		return func() {}
	}
	wake, stopW, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	fds = append(fds, unix.PollFd{Fd: int32(wake.Fd()), Events: unix.POLLIN})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer wake.Close()
		for {
			if _, err := unix.Poll(fds, -1); err == unix.EINTR {
				continue
			} else if err != nil || fds[len(fds)-1].Revents != 0 {
				return
			}
			for _, p := range fds[:len(fds)-1] {
				if p.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
					cancel(ErrOutputGone)
					return
				}
			}
		}
	}()
	return func() {
		stopW.Close()
		<-done
	}
}
