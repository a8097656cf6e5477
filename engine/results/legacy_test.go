package results

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadsFormat1Sets: the committed reference sets predate the
// invocation history; they read as one invocation.
func TestReadsFormat1Sets(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "reference-sequential")
	if _, err := os.Stat(filepath.Join(dir, RunsFile)); err != nil {
		t.Skip("no reference set in this checkout")
	}
	set, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if set.Provenance.Format == FormatVersion {
		t.Skip("the reference set has been re-measured in the current format")
	}
	inv := set.Provenance.Last()
	if len(set.Provenance.Invocations) != 1 || inv.ID != 0 || inv.SpecHash == "" || inv.StartedAt.IsZero() || len(set.Runs) == 0 {
		t.Errorf("format-1 provenance read as %+v (%d runs)", set.Provenance, len(set.Runs))
	}
	for _, r := range set.Runs {
		if r.Invocation != inv.ID || r.UserNS != nil {
			t.Fatalf("format-1 run read as %+v", r)
		}
	}
}
