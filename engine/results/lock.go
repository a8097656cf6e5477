package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Lock is a writer's hold on a result directory. It is an flock on
// LockFile, so the kernel releases it when its holder dies however it
// dies: a lock left by a killed run is stale by construction and the next
// writer simply takes it. The file keeps the holder's pid and start time
// so a refused writer can say who holds it. The file itself stays: removing
// it would let two writers lock two different files.
type Lock struct {
	f *os.File
}

// LockedError says another live process holds the directory.
type LockedError struct {
	Dir    string
	Holder string // "pid 123, started 2026-11-30T10:00:00Z", as the holder wrote it
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is being written by another spawnbench (%s); wait for it to finish, or choose another directory with -o", e.Dir, e.Holder)
}

// TakeLock locks dir for writing, or returns a *LockedError naming the
// live holder.
func TakeLock(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			b, _ := os.ReadFile(path)
			holder := strings.TrimSpace(string(b))
			if holder == "" {
				holder = "holder unknown"
			}
			return nil, &LockedError{Dir: dir, Holder: holder}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The lock is ours; whatever the file says is a dead holder's.
	info := fmt.Sprintf("pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(info), 0)
	}
	return &Lock{f: f}, nil
}

// Release gives the directory up.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		_ = l.f.Truncate(0)
		_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}
