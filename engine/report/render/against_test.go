package render

import (
	"bytes"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
)

// TestAgainstHasASideBySideSection: the report words each against pair
// in its own section (engine/report tests the ratios).
func TestAgainstHasASideBySideSection(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.AgainstSet())
	var b bytes.Buffer
	if err := Write(r, &b, "md", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## Side by side") || !strings.Contains(b.String(), "| libc | free | sequential |") {
		t.Errorf("the markdown report has no side-by-side row for libc against free:\n%s", b.String())
	}
}
