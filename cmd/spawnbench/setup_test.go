package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupNamesWhatItInstalls runs .ci/setup --check, which changes
// nothing, on a PATH that holds only bash and dirname, as on a machine
// with none of the tools: it names python3-venv (python3 -m venv needs
// Debian's ensurepip) and npm among the packages it would install. On
// this machine's PATH it names neither where both are here.
func TestSetupNamesWhatItInstalls(t *testing.T) {
	setup := filepath.Join(repoRoot(t), ".ci", "setup")
	bare := t.TempDir()
	for _, tool := range []string{"bash", "dirname"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
		if err := os.Symlink(p, filepath.Join(bare, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bare, "bash"), setup, "--check")
	cmd.Env = []string{"PATH=" + bare}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("setup --check on a bare PATH: %v\n%s", err, out)
	}
	for _, pkg := range []string{" python3 ", " python3-venv ", " npm ", " gcc "} {
		if !strings.Contains(string(out)+" ", pkg) {
			t.Errorf("setup --check on a bare PATH does not name %q:\n%s", strings.TrimSpace(pkg), out)
		}
	}
	out, err = exec.Command("bash", setup, "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("setup --check: %v\n%s", err, out)
	}
	if exec.Command("python3", "-c", "import ensurepip, venv").Run() == nil && strings.Contains(string(out)+" ", " python3-venv ") {
		t.Errorf("setup --check names python3-venv where python3 -m venv works:\n%s", out)
	}
	if _, err := exec.LookPath("npm"); err == nil && strings.Contains(string(out)+" ", " npm ") {
		t.Errorf("setup --check names npm where npm is on PATH:\n%s", out)
	}
}
