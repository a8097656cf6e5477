package reexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// exitRole prints what it sees of its own role variable and exits 7.
const exitRole = "test-exit-7"

// echoRole answers one message on its socket.
const echoRole = "test-echo"

func TestMain(m *testing.M) {
	Register(exitRole, func() int {
		v, set := os.LookupEnv(roleVar)
		fmt.Printf("role variable %q set %v\n", v, set)
		return 7
	})
	Register(echoRole, func() int {
		conn, err := Socket()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		buf := make([]byte, 100)
		n, err := conn.Read(buf)
		if err != nil {
			return 3
		}
		_, _ = conn.Write(append([]byte("echo: "), buf[:n]...))
		return 0
	})
	Dispatch()
	os.Exit(m.Run())
}

func TestCommandPlaysTheRole(t *testing.T) {
	cmd, err := Command(exitRole)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("the role exited with %v, want status 7 (output %q)", err, out)
	}
	// Unset before the role runs: whatever the role starts is not a role.
	if want := "role variable \"\" set false\n"; string(out) != want {
		t.Errorf("the role printed %q, want %q", out, want)
	}
}

func TestAnUnknownRoleIsRefused(t *testing.T) {
	if _, err := Command("no-such-role"); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("Command of an unregistered role: %v, want a refusal", err)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = append(os.Environ(), roleVar+"=no-such-role")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), `no helper role "no-such-role"`) || !strings.Contains(string(out), exitRole) {
		t.Errorf("a copy started as an unknown role: %v, %q; want exit 2 naming the role and the known ones", err, out)
	}
}

func TestNoRoleWithoutDispatch(t *testing.T) {
	dispatched.Store(false)
	defer dispatched.Store(true)
	if _, err := Env(exitRole); err == nil || !strings.Contains(err.Error(), "never called reexec.Dispatch") {
		t.Errorf("Env before Dispatch: %v, want a refusal naming Dispatch", err)
	}
}

func TestStartWithSocketHandsTheRoleItsEnd(t *testing.T) {
	cmd, conn, err := StartWithSocket(echoRole, &syscall.SysProcAttr{Setpgid: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, err := conn.Read(buf)
	if err != nil || string(buf[:n]) != "echo: hello" {
		t.Errorf("the role answered %q, %v; want %q", buf[:n], err, "echo: hello")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the role ended with %v, want status 0", err)
	}
}
