package results

import (
	"path/filepath"
	"testing"
)

// TestReadsFormat1Sets: sets written before the invocation history (a
// copy of the first reference set is kept in testdata/format1) read as
// one invocation.
func TestReadsFormat1Sets(t *testing.T) {
	dir := filepath.Join("testdata", "format1")
	set, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if set.Provenance.Format == FormatVersion {
		t.Fatalf("testdata/format1 reads as the current format %d", FormatVersion)
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
