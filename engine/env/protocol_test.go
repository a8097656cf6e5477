package env_test

import (
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/env"
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

// parseSpawns reads c/sb.h's output protocol, as every environment prints
// it: three integers a line, blank and '#' lines skipped.
func parseSpawns(t testing.TB, stdout []byte) [][3]int64 {
	t.Helper()
	var rows [][3]int64
	for _, line := range strings.Split(string(stdout), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("line %q: want 3 fields", line)
		}
		var row [3]int64
		for i := range f {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	return rows
}
