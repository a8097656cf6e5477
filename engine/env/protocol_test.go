package env_test

import (
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
	"spawnbench/engine/spec"
)

// envFromSpec makes an environment from a one-environment spec, so the
// kind's CUE definition and defaults are what is under test; fields are
// extra CUE fields such as `, host_threads: "fresh"`.
func envFromSpec(t testing.TB, name, kind, fields string) env.Environment {
	t.Helper()
	src := `environments: [{name: "` + name + `", kind: "` + kind + `"` + fields + `}]
n: [1]
`
	s, err := spec.Parse(name+"_test.cue", []byte(src))
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	es := s.Environments[0]
	e, err := env.New(es.Kind, es.Name, es.Settings)
	if err != nil {
		t.Fatal(err)
	}
	return e
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
