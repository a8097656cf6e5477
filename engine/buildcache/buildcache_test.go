package buildcache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"spawnbench/internal/fulltest"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// TestTheStudyBuildsEachArtefactOnce: the study's 38 environments and the
// one-CPU twins of four of them run 8 distinct artefacts (native, the
// wasi-threads .wasm, the wasi-libc build, the Emscripten 3.1.6 and 6
// builds each with and without its pool, the raw-worker page), and the
// cache names a build by payload and build key alone, so it makes 8 build
// directories: a twin runs its environment's build, and a host of the sid
// root runs the system's build of a payload whose tools are the system's.
func TestTheStudyBuildsEachArtefactOnce(t *testing.T) {
	fulltest.Only(t, "asks every toolchain of the study for its version")
	s, err := spec.Load(filepath.Join("..", "..", "specs", "study.cue"))
	if err != nil {
		t.Fatal(err)
	}
	builds := map[string][]string{}
	for _, es := range s.Environments {
		e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
		if err != nil {
			t.Fatal(err)
		}
		k := e.BuildName() + "\x00" + e.BuildKey(context.Background())
		builds[k] = append(builds[k], es.Name)
	}
	var groups []string
	for _, names := range builds {
		groups = append(groups, fmt.Sprintf("%s and %d more", names[0], len(names)-1))
	}
	sort.Strings(groups)
	if len(s.Environments) != 49 || len(builds) != 9 {
		t.Errorf("%d environments make %d builds (%v), want 49 (43 and 6 one-CPU twins) and 9", len(s.Environments), len(builds), groups)
	}
}
