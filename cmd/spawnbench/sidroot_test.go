package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/internal/fulltest"
)

// TestOrdinaryUserRunsTheSidRoot: spawnbench run as an ordinary user
// (nobody) runs sid's Node.js 24 and Firefox 159 from the root that root's
// set-up made (engine/env.MachineRoots) under bwrap in a user namespace,
// the warm Firefox still in a network namespace of its own, every process
// ok, each environment's version naming the root's packages.
func TestOrdinaryUserRunsTheSidRoot(t *testing.T) {
	fulltest.Only(t, "runs sid's Node.js and Firefox as nobody")
	t.Parallel()
	root, err := env.SidRootDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".spawnbench-root")); err != nil || !strings.HasPrefix(root, env.MachineRoots) {
		t.Skipf("no sid root made by root's .ci/setup at %s: run .ci/setup as root", root)
	}
	sb, dir := ordinaryUser(t)
	spec := filepath.Join(dir, "sid.cue")
	if err := os.WriteFile(spec, []byte(`name: "sid"
modes: ["sequential"]
n: [1, 5]
samples: {min: 2, processes: 2}
environments: [
	{name: "manual-node-24", kind: "manual-node", root: "sid"},
	{name: "manual-firefox-159", kind: "manual-firefox", root: "sid"},
]
schedule: settle: cap: "0s" // as writeSpec's: no waiting out the tests' own load
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(sb, "run", spec, "-o", out, "--costs", fulltest.ReferenceCosts(t, dir))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	stdout, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("spawnbench run as nobody: %v\n%s", err, stdout)
	}
	for _, cell := range []string{"manual-node-24  sequential  1", "manual-node-24  sequential  5",
		"manual-firefox-159  sequential  1", "manual-firefox-159  sequential  5"} {
		if !regexp.MustCompile(regexp.QuoteMeta(cell) + `\s+2 ok`).Match(stdout) {
			t.Errorf("cell %q: not 2 ok processes:\n%s", cell, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "provenance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Invocations []struct {
			Toolchains map[string]string `json:"toolchains"`
			Isolation  string            `json:"browser_isolation"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal(b, &p); err != nil || len(p.Invocations) == 0 {
		t.Fatalf("provenance: %v: %s", err, b)
	}
	inv := p.Invocations[0]
	for env, want := range map[string]string{"manual-node-24": "Node.js v24.", "manual-firefox-159": "Mozilla Firefox 159"} {
		if v := inv.Toolchains[env]; !strings.HasPrefix(v, want) || !strings.Contains(v, "[sid root sid-") {
			t.Errorf("%s's toolchain %q: want %s… with the sid root's packages", env, v, want)
		}
	}
	if inv.Isolation != "netns" {
		t.Errorf("nobody's warm Firefox 159: isolation %q, want netns (a network namespace of its own)", inv.Isolation)
	}
}
