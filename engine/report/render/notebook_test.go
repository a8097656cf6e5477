package render

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/report/reporttest"
	"spawnbench/internal/fulltest"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// executeNotebook runs results/analysis.ipynb end to end with nbclient
// against the result set in dir; the kernel talks over local sockets
// made in the test's temporary directory (argv[2]), not in results/, and
// its connection file is there too (left to itself, jupyter_client
// writes one into $TMPDIR that nothing removes).
const executeNotebook = `
import os, sys
import nbclient, nbformat
from jupyter_client.manager import KernelManager
nb = nbformat.read("analysis.ipynb", as_version=4)
km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sys.argv[2], "kernel"),
                   connection_file=os.path.join(sys.argv[2], "kernel.json"))
nbclient.NotebookClient(nb, km=km, timeout=120, resources={"metadata": {"path": "."}}).execute()
for i, cell in enumerate(nb.cells):
    cell.setdefault("id", f"cell-{i}")  # stable ids, so the committed file diffs cleanly
nbformat.write(nb, sys.argv[1])
`

// repoRoot is the directory holding go.mod.
func repoRoot(t *testing.T) string { return fulltest.RepoRoot(t) }

// venvPython is the virtual environment's Python. Without one the test is
// skipped on a developer's machine but fails under CI, which must have it.
func venvPython(t *testing.T, root string) string {
	t.Helper()
	fulltest.Only(t, "runs the notebook's Python")
	py := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := "no " + py + " for the notebook test; create it with: python3 -m venv .venv && .venv/bin/pip install -r results/requirements.txt"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return py
}

// runNotebook executes the notebook against dir and returns its classic
// table in long form (environment, mode, column, mean_us, text).
func runNotebook(t *testing.T, dir string) [][]string {
	t.Helper()
	rows, _, out, err := execNotebook(t, dir)
	if err != nil {
		t.Fatalf("notebook failed: %v\n%s", err, out)
	}
	return rows
}

// execNotebook executes the notebook against dir; on success it returns
// the classic table in long form and the text its cells printed.
func execNotebook(t *testing.T, dir string) ([][]string, string, []byte, error) {
	t.Helper()
	rows, printed, _, out, err := execNotebookTo(t, dir, filepath.Join(t.TempDir(), "executed.ipynb"))
	return rows, printed, out, err
}

// execNotebookTo is execNotebook writing the executed notebook to
// executed, and returning its cells' text outputs one by one.
func execNotebookTo(t *testing.T, dir, executed string) ([][]string, string, []string, []byte, error) {
	t.Helper()
	root := repoRoot(t)
	py := venvPython(t, root)
	tmp := t.TempDir()
	table := filepath.Join(tmp, "classic.csv")
	cmd := exec.Command(py, "-c", executeNotebook, executed, tmp)
	cmd.Dir = filepath.Join(root, "results")
	cmd.Env = append(os.Environ(), "SPAWNBENCH_TABLE_OUT="+table,
		// The inline backend shows plots as notebook outputs, whatever the caller set.
		"MPLBACKEND=module://matplotlib_inline.backend_inline")
	if dir != "" {
		cmd.Env = append(cmd.Env, "SPAWNBENCH_RESULTS="+dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, "", nil, out, err
	}
	printed, perCell := executedOutputs(t, executed)
	f, err := os.Open(table)
	if err != nil {
		t.Fatalf("notebook wrote no table: %v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "environment,mode,column,mean_us,text" {
		t.Fatalf("notebook table = %v", rows)
	}
	return rows[1:], printed, perCell, nil, nil
}

// executedOutputs is the text the executed notebook's cells printed, in
// all and cell by cell (text outputs only: pictures are not compared);
// it fails unless the notebook displayed a plot.
func executedOutputs(t *testing.T, path string) (string, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Data map[string]any `json:"data"`
				Text any            `json:"text"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	var perCell []string
	plot := false
	for _, c := range nb.Cells {
		var cell strings.Builder
		for _, o := range c.Outputs {
			if _, ok := o.Data["image/png"]; ok {
				plot = true
			}
			for _, text := range []any{o.Text, o.Data["text/plain"]} {
				switch text := text.(type) {
				case string:
					cell.WriteString(text)
				case []any:
					for _, line := range text {
						cell.WriteString(fmt.Sprint(line))
					}
				}
			}
			if s, ok := o.Text.(string); ok {
				printed.WriteString(s)
			} else if lines, ok := o.Text.([]any); ok {
				for _, line := range lines {
					printed.WriteString(fmt.Sprint(line))
				}
			}
		}
		perCell = append(perCell, cell.String())
	}
	if !plot {
		t.Error("the executed notebook shows no plot")
	}
	return printed.String(), perCell
}

// buildReport is set's report as spawnbench report builds it.
func buildReport(t *testing.T, set *results.Set) *report.Report {
	t.Helper()
	r, err := report.Build([]report.Input{{Dir: "d", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkAgainstReport compares the notebook's classic table with the one
// spawnbench report builds from the same set (r): the same rows and
// columns, means equal to rounding, and the same text around them.
func checkAgainstReport(t *testing.T, rows [][]string, r *report.Report) {
	t.Helper()
	seen := map[string]bool{}
	for _, row := range rows {
		env, mode, label, mean, text := row[0], row[1], row[2], row[3], row[4]
		c := cellByLabel(r, env, mode, label)
		if c == nil {
			t.Errorf("notebook has %s %s %q, the report does not", env, mode, label)
			continue
		}
		seen[env+"/"+mode+"/"+label] = true
		want := ClassicText(c)
		if c.Stats == nil {
			if mean != "" || text != want {
				t.Errorf("%s %s %s: notebook %q (mean %q), report %q", env, mode, label, text, mean, want)
			}
			continue
		}
		got, err := strconv.ParseFloat(mean, 64)
		if err != nil || !reporttest.Near(got, float64(c.Stats.MeanUS)) {
			t.Errorf("%s %s %s: notebook mean %q, report %v", env, mode, label, mean, c.Stats.MeanUS)
		}
		// The number itself may round differently in its last digit
		// when the sums differ in their last bit; what follows must not.
		_, gotRest, _ := strings.Cut(text, textfmt.TimeUS(got))
		_, wantRest, _ := strings.Cut(want, textfmt.TimeUS(float64(c.Stats.MeanUS)))
		if gotRest != wantRest {
			t.Errorf("%s %s %s: notebook %q, report %q", env, mode, label, text, want)
		}
	}
	for _, c := range r.Cells {
		if !seen[c.Environment+"/"+c.Mode+"/"+columnLabel(c.Column)] {
			t.Errorf("report has %s %s %q, the notebook does not", c.Environment, c.Mode, columnLabel(c.Column))
		}
	}
}

func cellByLabel(r *report.Report, env, mode, label string) *report.Cell {
	for _, col := range r.Columns {
		if columnLabel(col) == label {
			return r.Cell(env, mode, col)
		}
	}
	return nil
}

func TestNotebookRebuildsClassicTable(t *testing.T) {
	t.Parallel()
	s := reporttest.RealisticSet(t)
	dir := writeSet(t, s)
	rows := runNotebook(t, dir)
	checkAgainstReport(t, rows, buildReport(t, s))
	// The fixture has every kind of cell; make sure they all came through.
	var texts []string
	for _, row := range rows {
		texts = append(texts, row[4])
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"OOM", "(1 timeout)", untrustedMark, "skipped", "n/a"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notebook table has no %q cell: %v", want, texts)
		}
	}
}

func TestNotebookOnCommittedMainJobSet(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	main := filepath.Join(root, "results", "sequential")
	set, err := results.Read(main)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the main job's set the notebook reads by default is missing: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	// No SPAWNBENCH_RESULTS: the notebook's default must be this set.
	executed := filepath.Join(t.TempDir(), "executed.ipynb")
	rows, printed, got, out, err := execNotebookTo(t, "", executed)
	if err != nil {
		t.Fatalf("notebook failed: %v\n%s", err, out)
	}
	// One build of the set's report for both checks: it is most of the
	// test's own time.
	r := buildReport(t, set)
	checkAgainstReport(t, rows, r)
	checkPrintsTheBottomLine(t, printed, r)
	// The notebook is committed with its outputs on this set; they must be
	// what it prints today. -update rewrites it.
	committed := filepath.Join(root, "results", "analysis.ipynb")
	if *update {
		b, err := os.ReadFile(executed)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(committed, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, want := executedOutputs(t, committed)
	if len(want) != len(got) {
		t.Fatalf("the committed notebook has %d cells, the executed one %d: regenerate it with go test ./engine/report/render -run TestNotebookOnCommittedMainJobSet -update", len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("cell %d of the committed notebook shows outputs it no longer prints (regenerate with go test ./engine/report/render -run TestNotebookOnCommittedMainJobSet -update):\n got: %.300q\nwant: %.300q", i, got[i], want[i])
		}
	}
}

// checkPrintsTheBottomLine: the notebook's first cells print, from
// cells.parquet, every figure and ratio of the bottom line that the
// report r (and so the README) shows for its set, each as the report
// words it.
func checkPrintsTheBottomLine(t *testing.T, printed string, r *report.Report) {
	t.Helper()
	bl := r.BottomLine
	if bl == nil || len(bl.Rows) == 0 {
		t.Fatal("the set has no bottom line")
	}
	lines := map[string]bool{}
	for _, line := range strings.Split(printed, "\n") {
		lines[strings.Join(strings.Fields(line), " ")] = true
	}
	for _, row := range bl.Rows {
		for role, fig := range map[string]*report.BottomCell{"first spawn": row.First, "steady state": row.Steady} {
			if fig == nil {
				continue
			}
			figure, ratio := bottomTexts(fig, row.Environment == r.Baseline)
			want := strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %s", fig.Environment, role, figure, ratio)), " ")
			if !lines[want] {
				t.Errorf("the notebook does not print the bottom line's %s of %s as %q:\n%s", role, row.Environment, want, printed)
			}
		}
	}
}

func TestNotebookRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	s := reporttest.RealisticSet(t)
	s.Samples = append(s.Samples, s.Samples[len(s.Samples)/2])
	d := s.Samples[len(s.Samples)-1]
	_, _, out, err := execNotebook(t, writeSet(t, s))
	want := fmt.Sprintf("holds cell %s/%s/%d twice", d.Environment, d.Mode, d.N)
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("notebook on a set with a duplicate spawn: %v, want a failure saying %q:\n%s", err, want, out)
	}
}

func TestNotebookIntervalIsTheReports(t *testing.T) {
	t.Parallel()
	// One cell of 40 processes a second apart on a machine that drifts
	// (a slow sine over the run, little noise between processes): the
	// report's interval is its drift windows', and the notebook's must be
	// the same.
	s := &results.Set{Provenance: reporttest.Provenance("", `{"native":"gcc 12"}`)}
	const processes = 40
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 100, Processes: processes,
		SpawnNS: func(p, t int) int64 {
			level := 20e3 * math.Exp(0.3*math.Sin(2*math.Pi*float64(p)/processes))
			return int64(level * (1 + 0.01*float64((p*7+t*3)%11)))
		}})
	for i := range s.Runs {
		s.Runs[i].StartedAt = reporttest.Start.Add(time.Duration(s.Runs[i].Process) * time.Second)
	}
	r, err := report.Build([]report.Input{{Dir: "d", Set: s}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &r.Cell("native", "sequential", report.Column{N: 100}).Stats.Estimate
	if !e.Windowed {
		t.Fatalf("the fixture's interval is not its drift windows': %+v", e)
	}
	_, printed, out, err := execNotebook(t, writeSet(t, s))
	if err != nil {
		t.Fatalf("notebook failed: %v\n%s", err, out)
	}
	want := fmt.Sprintf("typical %s [%s, %s] over %d processes", textfmt.TimeUS(float64(e.TypicalUS)), textfmt.TimeUS(float64(e.LowUS)), textfmt.TimeUS(float64(e.HighUS)), processes)
	if !strings.Contains(printed, want) {
		t.Errorf("the notebook did not print the report's interval %q:\n%s", want, printed)
	}
}
