package env_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// ownedProcesses tells the processes a test started, and their
// descendants, from every other process on the machine (the user's own
// browser, another run's): the test points TMPDIR, where the browsers'
// profiles go, at a directory of its own and sets a variable that every
// child inherits. Chromium's children overwrite their environment with
// their title but name the profile on their command line; its crash
// handlers leave its process group but keep the environment it gave them.
type ownedProcesses struct {
	marker []byte // NAME=value, as /proc/<pid>/environ holds it
	dir    string
}

// ownProcesses marks everything the test starts from now on. It sets
// environment variables, so a test calling it must not be parallel.
func ownProcesses(t *testing.T) ownedProcesses {
	t.Helper()
	dir := t.TempDir()
	value := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	t.Setenv("TMPDIR", dir)
	t.Setenv("SPAWNBENCH_TEST_OWNER", value)
	return ownedProcesses{marker: []byte("SPAWNBENCH_TEST_OWNER=" + value + "\x00"), dir: dir}
}

// living lists the owned processes that run (zombies are not running),
// as "pid command" strings.
func (o ownedProcesses) living() []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []string{fmt.Sprintf("cannot read /proc: %v", err)}
	}
	self := os.Getpid()
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		end := bytes.LastIndexByte(stat, ')')
		if err != nil || end < 0 || end+2 >= len(stat) || stat[end+2] == 'Z' || stat[end+2] == 'X' {
			continue
		}
		// Another user's processes are unreadable here, and not ours.
		environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		if bytes.Contains(environ, o.marker) || bytes.Contains(cmdline, []byte(o.dir)) {
			out = append(out, e.Name()+" "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// watch samples the owned processes until stop is closed and returns the
// most it saw running at once, so a test can show that living looks at
// the processes it means to.
func (o ownedProcesses) watch(stop <-chan struct{}) <-chan int {
	most := make(chan int, 1)
	go func() {
		seen := 0
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			seen = max(seen, len(o.living()))
			select {
			case <-stop:
				most <- seen
				return
			case <-tick.C:
			}
		}
	}()
	return most
}
