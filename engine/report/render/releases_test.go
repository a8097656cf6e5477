package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
)

// TestReleasesSectionHasItsTableAndPlot: the releases are listed oldest
// first with their plot beside them, once (engine/report tests the rows).
func TestReleasesSectionHasItsTableAndPlot(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.FiveReleasesSet())
	dir := t.TempDir()
	plots, err := WritePlots(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if st, err := os.Stat(filepath.Join(dir, releasesPlotBase+ext)); err != nil || st.Size() < 1000 {
			t.Errorf("release plot %s: %v", ext, err)
		}
	}
	var b bytes.Buffer
	if err := Write(r, &b, FormatMarkdown, plots); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	section := md[strings.Index(md, "## Spawn cost by Wasmtime release"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	if !strings.Contains(section, "| Release | Version | Environment | Mode | n | Typical | 95% CI | Processes | ÷ native |") ||
		!strings.Contains(section, "| 9 | 9.0.4 | wasmtime-9 | sequential | 1 | ") ||
		!strings.Contains(section, "![Typical spawn time by Wasmtime release]("+releasesPlotBase+".png)") {
		t.Errorf("release section lacks its header, a row or its plot:\n%s", section)
	}
	if i, j := strings.Index(section, "| 9.0.4 |"), strings.Index(section, "| 36.0.9 |"); i < 0 || j < i {
		t.Errorf("9.0.4 is not listed before 36.0.9:\n%s", section)
	}
	if strings.Count(md, releasesPlotBase+".png") != 1 {
		t.Errorf("the release plot is shown %d times, want once, with its table", strings.Count(md, releasesPlotBase+".png"))
	}
}

// TestReleasesSectionNeedsTwoReleases: one release (even in two
// environments) is nothing to set side by side, and an environment whose
// run recorded no CLI version is not placed by its name.
func TestReleasesSectionNeedsTwoReleases(t *testing.T) {
	t.Parallel()
	for name, set := range reporttest.SetsOfFewerThanTwoReleases() {
		b := markdownOf(t, reporttest.Build(t, set))
		if strings.Contains(b.String(), "Spawn cost by Wasmtime release") {
			t.Errorf("%s: the report has a release section", name)
		}
	}
}
