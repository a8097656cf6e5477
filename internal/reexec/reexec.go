// Package reexec is the one way spawnbench's binary starts a copy of
// itself to play a helper role: a containment guardian or keeper, a
// cgroup probe, a network namespace's holder, a test's intruder. A role
// registers by name from its package's init (Register); main, and the
// TestMain of every test binary that starts a role, calls Dispatch first,
// which plays the role named in the environment and exits, or returns at
// once when there is none (RunTests is a TestMain that does only that).
//
// A role is private: its process speaks to the spawnbench that started it
// over descriptors and environment variables of its own, and nobody types
// its name. A hidden subcommand that a user or another program may run
// (spawnbench wasmtime and spawnbench wazero, which the wasi-threads and
// wazero hosts run as their runtimes, with the module's arguments and exit
// status) is a command, with its help, flags and documentation, and stays
// one in cmd/spawnbench.
//
// Command refuses to start a role in a binary that has not called
// Dispatch: the copy would not know its role and would run the program,
// or the test binary's tests, again.
package reexec

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
)

// roleVar, in a process's environment, names the role it plays.
const roleVar = "SPAWNBENCH_ROLE"

var (
	roles      = map[string]func() int{}
	dispatched atomic.Bool
)

// Register makes role playable under name; call it from an init function.
// role's result is the process's exit status.
func Register(name string, role func() int) {
	if _, dup := roles[name]; dup || name == "" {
		panic(fmt.Sprintf("reexec: role %q registered twice or unnamed", name))
	}
	roles[name] = role
}

// Dispatch plays the role this process was started for, if any, and
// exits with its status; otherwise it returns. Call it first in main and
// in TestMain.
func Dispatch() {
	dispatched.Store(true)
	name, ok := os.LookupEnv(roleVar)
	if !ok {
		return
	}
	// A role's own children (a guardian's tree) are not roles.
	os.Unsetenv(roleVar)
	role, ok := roles[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "spawnbench: no helper role %q in this binary (it has %s)\n", name, strings.Join(names(), ", "))
		os.Exit(2)
	}
	os.Exit(role())
}

// Env is the environment entry that makes this binary (or a copy of it)
// play the role name; the caller adds it to a command of its own.
func Env(name string) (string, error) {
	if !dispatched.Load() {
		return "", fmt.Errorf("cannot start helper role %q: this binary never called reexec.Dispatch (call it first in main or TestMain)", name)
	}
	if _, ok := roles[name]; !ok {
		return "", fmt.Errorf("cannot start helper role %q: not registered in this binary", name)
	}
	return roleVar + "=" + name, nil
}

// Command is this binary, started afresh as role name, with this
// process's environment; the caller adds what the role reads.
func Command(name string) (*exec.Cmd, error) {
	entry, err := Env(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = append(os.Environ(), entry)
	return cmd, nil
}

func names() []string {
	var all []string
	for n := range roles {
		all = append(all, n)
	}
	sort.Strings(all)
	return all
}

// StartWithSocket starts role name (see Command) with one end of a Unix
// socket pair (SOCK_SEQPACKET: messages keep their bounds) as its
// descriptor 3, which the role opens with Socket, and the process
// attributes attr. It returns the started command and this process's end
// of the pair.
func StartWithSocket(name string, attr *syscall.SysProcAttr) (*exec.Cmd, *net.UnixConn, error) {
	cmd, err := Command(name)
	if err != nil {
		return nil, nil, err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("create the %s's socket: %w", name, err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), name+" socket"), os.NewFile(uintptr(fds[1]), name+" socket")
	defer theirs.Close()
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("open the %s's socket: %w", name, err)
	}
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("start the %s: %w", name, err)
	}
	return cmd, c.(*net.UnixConn), nil
}

// Socket is, in a role started by StartWithSocket, its end of the pair.
func Socket() (*net.UnixConn, error) {
	f := os.NewFile(3, "spawnbench socket")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("no socket on descriptor 3: %w", err)
	}
	conn, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("descriptor 3 is a %T, not a Unix socket", c)
	}
	return conn, nil
}

// RunTests is a test binary's whole TestMain when it needs nothing else:
// it plays its role, if it was started for one, or runs the tests.
func RunTests(m interface{ Run() int }) {
	Dispatch()
	os.Exit(m.Run())
}
