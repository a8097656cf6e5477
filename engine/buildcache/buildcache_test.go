package buildcache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// TestTheStudyBuildsEachArtefactOnce: the study's 28 environments and the
// one-CPU twins of four of them run 6 distinct artefacts (native, the
// wasi-threads .wasm, the wasi-libc build, the Emscripten build with and
// without its pool, the raw-worker page), and the cache names a build by
// payload and build key alone, so it makes 6 build directories: a twin
// runs its environment's build.
func TestTheStudyBuildsEachArtefactOnce(t *testing.T) {
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
	if len(s.Environments) != 33 || len(builds) != 7 {
		t.Errorf("%d environments make %d builds (%v), want 33 (29 and 4 one-CPU twins) and 7", len(s.Environments), len(builds), groups)
	}
}
