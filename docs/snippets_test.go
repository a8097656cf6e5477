package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// pythonBlock is a fenced Python snippet of a page.
var pythonBlock = regexp.MustCompile("(?s)```python\n(.*?)```")

// TestResultsSnippetsShowTheBottomLine runs docs/results.md's pandas,
// polars and DuckDB snippets of "Reading a set" with the project's
// Python, from the repository's root as a reader would, and wants the
// pandas and polars ones to list exactly the cells of the bottom line
// the README shows (the report's, from results/sequential).
func TestResultsSnippetsShowTheBottomLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python: a full-run test (go test without -short runs it)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := "no " + py + " to run docs/results.md's snippets; create it with: python3 -m venv .venv && .venv/bin/pip install -r results/requirements.txt"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(page), "\n## Reading a set\n")
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := pythonBlock.FindAllStringSubmatch(section, -1)
	if len(blocks) != 3 {
		t.Fatalf("docs/results.md's \"Reading a set\" has %d Python snippets, want the pandas, polars and DuckDB ones", len(blocks))
	}
	set, err := results.Read(filepath.Join(root, "results", "sequential"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build([]report.Input{{Dir: "results/sequential", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.BottomLine == nil {
		t.Fatal("results/sequential has no bottom line")
	}
	var want []string // "environment role", the bottom line's cells
	for _, row := range r.BottomLine.Rows {
		for _, f := range []struct {
			fig  *report.BottomCell
			role string
		}{{row.First, "first spawn"}, {row.Steady, "steady state"}} {
			if f.fig != nil {
				want = append(want, f.fig.Environment+" "+f.role)
			}
		}
	}
	// Wide enough that no table wraps or elides a row: the snippets
	// themselves print as a reader's terminal would.
	const display = "import pandas, polars\npandas.set_option('display.width', 1000)\npandas.set_option('display.max_columns', 100)\npolars.Config.set_tbl_rows(-1)\npolars.Config.set_tbl_cols(-1)\npolars.Config.set_tbl_width_chars(1000)\n"
	for i, name := range []string{"pandas", "polars", "DuckDB"} {
		cmd := exec.Command(py, "-c", display+blocks[i][1])
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("the %s snippet failed: %v\n%s", name, err, out)
			continue
		}
		if name == "DuckDB" {
			cells := map[string]bool{}
			for _, r := range set.Runs {
				cells[fmt.Sprintf("%s/%s/%d", r.Environment, r.Mode, r.N)] = true
			}
			if rows := fmt.Sprintf("%d rows", len(cells)); !strings.Contains(string(out), "@one-cpu") || !strings.Contains(string(out), rows) {
				t.Errorf("the DuckDB snippet does not list results/sequential's %d cells, one-CPU twins among them:\n%s", len(cells), out)
			}
			continue
		}
		got := bottomLineRows(string(out))
		if strings.Join(got, "\n") != strings.Join(slices.Sorted(slices.Values(want)), "\n") {
			t.Errorf("the %s snippet lists the bottom-line cells\n%s\nthe README's bottom line shows\n%s\n(output:\n%s)", name, strings.Join(got, "\n"), strings.Join(slices.Sorted(slices.Values(want)), "\n"), out)
		}
	}
}

// bottomLineRows are the "environment role" pairs of a printed table's
// rows, sorted: each row names one environment and says "first spawn"
// or "steady state".
func bottomLineRows(out string) []string {
	word := regexp.MustCompile(`[a-z0-9][a-z0-9@.-]*`)
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		role := ""
		for _, r := range []string{"first spawn", "steady state"} {
			if strings.Contains(line, r) {
				role = r
			}
		}
		if role == "" {
			continue
		}
		before, _, _ := strings.Cut(line, role)
		words := word.FindAllString(before, -1)
		if len(words) == 0 {
			continue
		}
		rows = append(rows, words[len(words)-1]+" "+role)
	}
	slices.Sort(rows)
	return rows
}
