package env_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/proc"
	"spawnbench/engine/spec"
)

// launcherHost is a host declared by this test alone: it runs an
// executable through env(1), as a launcher that wraps a program would.
type launcherHost struct {
	Launcher string `json:"launcher"`
}

func (h launcherHost) Toolchain(context.Context) env.Toolchain {
	return env.Toolchain{Present: true, Version: h.Launcher}
}

func (h launcherHost) Run(ctx context.Context, e env.Entry, r env.Repetition) (env.Outcome, error) {
	argv := append([]string{h.Launcher, filepath.Join(r.BuildDir, e.File)}, e.Args...)
	return proc.Run(ctx, proc.Command{Argv: argv, CPUs: r.CPUs, Stdout: r.Stdout})
}

// TestANewHostIsOneCUEFileAndOneGoType: a host declared in one CUE file
// (its settings and its pair with the native payload) and one Go type
// registered here runs the native payload, and the schema refuses a pair
// the file does not declare.
func TestANewHostIsOneCUEFileAndOneGoType(t *testing.T) {
	t.Parallel()
	cueFile := filepath.Join(t.TempDir(), "host_launcher.cue")
	if err := os.WriteFile(cueFile, []byte(`package schema

// launcher: runs an executable through a launcher command.
#Hosts: launcher: {
	launcher: string | *"/usr/bin/env"
}

#Pairs: native: launcher: {#kind: "native-launcher"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := spec.ExtendSchema(cueFile); err != nil {
		t.Fatal(err)
	}
	env.RegisterHost("launcher", "an executable through a launcher", env.FormExecutable,
		env.HostFacts{Family: "native", ClockStepNS: 1, Install: "apt-get install -y coreutils"},
		func(h launcherHost) env.Host { return h })

	s, err := spec.Parse("launcher.cue", []byte(`environments: [{name: "l", payload: "native", host: "launcher"}]
n: [10]
`))
	if err != nil {
		t.Fatal(err)
	}
	es := s.Environments[0]
	if es.Kind != "native-launcher" || es.Payload != "native" || es.Host != "launcher" {
		t.Fatalf("environment %+v", es)
	}
	e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if tc := e.Toolchain(context.Background()); !tc.Present || tc.Version == "" {
		t.Skipf("toolchain missing: %s; install with: %s", tc.Problem, tc.Install)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run, err := e.Stage(ctx, buildInTempDir(t, ctx, e))
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.Run(ctx, env.Repetition{Benchmark: env.Sequential, Arg: 10, BuildDir: run})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("run: %v, exit %d, stderr %s", err, o.ExitCode, o.Stderr)
	}
	if rows := parseSpawns(t, o.Stdout); len(rows) != 10 {
		t.Errorf("%d spawns, want 10", len(rows))
	}

	// A pair the file does not declare is refused at plan time.
	_, err = spec.Parse("bad.cue", []byte(`environments: [{name: "l", payload: "manual", host: "launcher"}]
n: [1]
`))
	if err == nil || !contains(err.Error(), "bad.cue:1", "cannot run on launcher", "hosts that run it") {
		t.Errorf("manual on the launcher host: %v", err)
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
