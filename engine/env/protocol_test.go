package env_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
	"spawnbench/engine/spec"
)

// envFromSpec makes an environment from a one-environment spec, so the
// kind's CUE definition and defaults are what is under test; fields are
// extra CUE fields such as `, host_threads: "fresh"`.
func envFromSpec(t testing.TB, name, kind, fields string) *env.Environment {
	t.Helper()
	e, err := specEnv(name, kind, fields)
	if err != nil {
		t.Fatal(err)
	}
	// A browser host keeps its browser warm until Close.
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// specEnv is envFromSpec's environment, which the caller closes.
func specEnv(name, kind, fields string) (*env.Environment, error) {
	src := `environments: [{name: "` + name + `", kind: "` + kind + `"` + fields + `}]
n: [1]
`
	s, err := spec.Parse(name+"_test.cue", []byte(src))
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	es := s.Environments[0]
	return env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
}

// sharedEnvs are environments of the kinds whose tests run ordinary
// pages, one a kind for the test binary, so that those tests share its
// warm browser (one start, not one a test) as a run's cells of one
// environment do; its pages still run one at a time, each in a context
// and renderer of its own. TestMain closes them.
var sharedEnvs = struct {
	sync.Mutex
	byKind map[string]*env.Environment
}{byKind: map[string]*env.Environment{}}

// sharedEnv is the test binary's environment of kind (sharedEnvs).
func sharedEnv(t testing.TB, kind string) *env.Environment {
	t.Helper()
	sharedEnvs.Lock()
	defer sharedEnvs.Unlock()
	if e := sharedEnvs.byKind[kind]; e != nil {
		return e
	}
	e, err := specEnv("web", kind, "")
	if err != nil {
		t.Fatal(err)
	}
	sharedEnvs.byKind[kind] = e
	return e
}

// closeSharedEnvs ends the shared environments' browsers.
func closeSharedEnvs() error {
	sharedEnvs.Lock()
	defer sharedEnvs.Unlock()
	var errs []error
	for _, e := range sharedEnvs.byKind {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}

// parseSpawns reads c/sb.h's output protocol with engine/protocol, as the
// runner does, and insists on all three fields: every environment prints
// them.
func parseSpawns(t testing.TB, stdout []byte) [][3]int64 {
	t.Helper()
	lines, err := protocol.Parse(stdout)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][3]int64, len(lines))
	for i, l := range lines {
		if l.CreateNS == nil || l.JoinedNS == nil {
			t.Fatalf("spawn line %d has only %d of 3 fields", i+1, 1+btoi(l.CreateNS != nil)+btoi(l.JoinedNS != nil))
		}
		rows[i] = [3]int64{l.SpawnNS, *l.CreateNS, *l.JoinedNS}
	}
	return rows
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNativeStreamsIntoACollector: a real benchmark's stdout streams
// through Repetition.Stdout into the runner's parser, and the process
// tree's cost comes back in the Outcome.
func TestNativeStreamsIntoACollector(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := envFromSpec(t, "native", "native", "")
	if tc := e.Toolchain(ctx); !tc.Present {
		t.Skipf("toolchain missing: %s; install with: %s", tc.Problem, tc.Install)
	}
	buildDir := buildInTempDir(t, ctx, e)
	for _, tc := range []struct {
		benchmark env.Benchmark
		n         int
	}{{env.Sequential, 50}, {env.Parallel, 20}} {
		t.Run(string(tc.benchmark), func(t *testing.T) {
			c := protocol.NewCollector(tc.n)
			out, err := e.Run(ctx, env.Repetition{Benchmark: tc.benchmark, Arg: tc.n, BuildDir: buildDir, Stdout: c})
			c.Close()
			if err != nil || out.ExitCode != 0 || out.Stdout != nil {
				t.Fatalf("err %v, exit %d, Outcome.Stdout %q (want nil: it streamed)", err, out.ExitCode, out.Stdout)
			}
			lines := c.Lines()
			if len(lines) != tc.n || c.Extra() != 0 || c.Err() != nil {
				t.Fatalf("%d lines, %d extra, err %v; want %d lines", len(lines), c.Extra(), c.Err(), tc.n)
			}
			for i, l := range lines {
				if l.JoinedNS == nil || l.SpawnNS < 0 || l.SpawnNS > *l.JoinedNS {
					t.Errorf("spawn %d: spawn_ns %d, joined_ns %v", i, l.SpawnNS, l.JoinedNS)
				}
			}
			if out.UserNS == nil || out.SysNS == nil || *out.UserNS+*out.SysNS <= 0 || out.MaxRSSBytes == nil || *out.MaxRSSBytes < 1<<20 {
				t.Errorf("user %v sys %v max rss %v: want CPU time > 0 and more than 1 MiB", out.UserNS, out.SysNS, out.MaxRSSBytes)
			}
		})
	}
}
