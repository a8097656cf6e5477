package env_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOneGoFilePerSchemaFile: each payload and host is one CUE file in
// the schema and one Go file here, of the same name.
func TestOneGoFilePerSchemaFile(t *testing.T) {
	t.Parallel()
	names := func(pattern, ext string) []string {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			base := strings.TrimSuffix(filepath.Base(f), ext)
			if !strings.HasSuffix(base, "_test") {
				out = append(out, base)
			}
		}
		slices.Sort(out)
		return out
	}
	var cue, golang []string
	for _, p := range []string{"payload_*", "host_*"} {
		cue = append(cue, names(filepath.Join("..", "spec", "schema", p+".cue"), ".cue")...)
		golang = append(golang, names(p+".go", ".go")...)
	}
	if !slices.Equal(cue, golang) || len(cue) < 10 {
		t.Errorf("schema files %v\nGo files     %v\nwant one Go file per payload_*.cue and host_*.cue", cue, golang)
	}
}
