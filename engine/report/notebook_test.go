package report

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

	"spawnbench/engine/results"
)

// executeNotebook runs results/analysis.ipynb end to end with nbclient
// against the result set in dir; the kernel talks over a local socket.
const executeNotebook = `
import sys
import nbclient, nbformat
from jupyter_client.manager import KernelManager
nb = nbformat.read("analysis.ipynb", as_version=4)
km = KernelManager(kernel_name="python3", transport="ipc")
nbclient.NotebookClient(nb, km=km, timeout=120, resources={"metadata": {"path": "."}}).execute()
nbformat.write(nb, sys.argv[1])
`

// repoRoot is the directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// venvPython is the virtual environment's Python. Without one the test is
// skipped on a developer's machine but fails under CI, which must have it.
func venvPython(t *testing.T, root string) string {
	t.Helper()
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
	root := repoRoot(t)
	py := venvPython(t, root)
	tmp := t.TempDir()
	table := filepath.Join(tmp, "classic.csv")
	executed := filepath.Join(tmp, "executed.ipynb")
	cmd := exec.Command(py, "-c", executeNotebook, executed)
	cmd.Dir = filepath.Join(root, "results")
	cmd.Env = append(os.Environ(), "SPAWNBENCH_TABLE_OUT="+table,
		// The inline backend shows plots as notebook outputs, whatever the caller set.
		"MPLBACKEND=module://matplotlib_inline.backend_inline")
	if dir != "" {
		cmd.Env = append(cmd.Env, "SPAWNBENCH_RESULTS="+dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, "", out, err
	}
	printed := executedOutputs(t, executed)
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
	return rows[1:], printed, nil, nil
}

// executedOutputs is the text the executed notebook's cells printed; it
// fails unless the notebook displayed a plot.
func executedOutputs(t *testing.T, path string) string {
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
	plot := false
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if _, ok := o.Data["image/png"]; ok {
				plot = true
			}
			switch text := o.Text.(type) {
			case string:
				printed.WriteString(text)
			case []any:
				for _, line := range text {
					printed.WriteString(fmt.Sprint(line))
				}
			}
		}
	}
	if !plot {
		t.Error("the executed notebook shows no plot")
	}
	return printed.String()
}

// checkAgainstReport compares the notebook's classic table with the one
// spawnbench report builds from the same set: the same rows and columns,
// means equal to rounding, and the same text around them.
func checkAgainstReport(t *testing.T, rows [][]string, set *results.Set) {
	t.Helper()
	r, err := Build([]Input{{Dir: "d", Set: set}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, row := range rows {
		env, mode, label, mean, text := row[0], row[1], row[2], row[3], row[4]
		c := cellByLabel(r, env, mode, label)
		if c == nil {
			t.Errorf("notebook has %s %s %q, the report does not", env, mode, label)
			continue
		}
		seen[env+"/"+mode+"/"+label] = true
		want := c.ClassicText()
		if c.Stats == nil {
			if mean != "" || text != want {
				t.Errorf("%s %s %s: notebook %q (mean %q), report %q", env, mode, label, text, mean, want)
			}
			continue
		}
		got, err := strconv.ParseFloat(mean, 64)
		if err != nil || !near(got, float64(c.Stats.MeanUS)) {
			t.Errorf("%s %s %s: notebook mean %q, report %v", env, mode, label, mean, c.Stats.MeanUS)
		}
		// The number itself may round differently in its last digit
		// when the sums differ in their last bit; what follows must not.
		_, gotRest, _ := strings.Cut(text, formatUS(got))
		_, wantRest, _ := strings.Cut(want, formatUS(float64(c.Stats.MeanUS)))
		if gotRest != wantRest {
			t.Errorf("%s %s %s: notebook %q, report %q", env, mode, label, text, want)
		}
	}
	for _, c := range r.Cells {
		if !seen[c.Environment+"/"+c.Mode+"/"+c.Label()] {
			t.Errorf("report has %s %s %q, the notebook does not", c.Environment, c.Mode, c.Label())
		}
	}
}

func cellByLabel(r *Report, env, mode, label string) *Cell {
	for _, col := range r.Columns {
		if col.Label() == label {
			return r.Cell(env, mode, col)
		}
	}
	return nil
}

func TestNotebookRebuildsClassicTable(t *testing.T) {
	s := realisticSet(t)
	dir := writeSet(t, s)
	rows := runNotebook(t, dir)
	checkAgainstReport(t, rows, s)
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

func TestNotebookOnCommittedReferenceSet(t *testing.T) {
	root := repoRoot(t)
	ref := filepath.Join(root, "results", "reference")
	set, err := results.Read(ref)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the reference set the notebook reads by default is missing: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	// No SPAWNBENCH_RESULTS: the notebook's default must be this set.
	checkAgainstReport(t, runNotebook(t, ""), set)
}

func TestNotebookRefusesDuplicateKeys(t *testing.T) {
	s := realisticSet(t)
	s.Samples = append(s.Samples, s.Samples[len(s.Samples)/2])
	d := s.Samples[len(s.Samples)-1]
	_, _, out, err := execNotebook(t, writeSet(t, s))
	want := fmt.Sprintf("holds cell %s/%s/%d twice", d.Environment, d.Mode, d.N)
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("notebook on a set with a duplicate spawn: %v, want a failure saying %q:\n%s", err, want, out)
	}
}

func TestNotebookIntervalIsTheReports(t *testing.T) {
	// One cell of 40 processes a second apart on a machine that drifts
	// (a slow sine over the run, little noise between processes): the
	// report's interval is its drift windows', and the notebook's must be
	// the same.
	s := &results.Set{Provenance: fixtureProvenance("", `{"native":"gcc 12"}`)}
	const processes = 40
	addCell(s, cellSpec{env: "native", mode: "sequential", n: 100, processes: processes,
		spawnNS: func(p, t int) int64 {
			level := 20e3 * math.Exp(0.3*math.Sin(2*math.Pi*float64(p)/processes))
			return int64(level * (1 + 0.01*float64((p*7+t*3)%11)))
		}})
	for i := range s.Runs {
		s.Runs[i].StartedAt = fixtureStart.Add(time.Duration(s.Runs[i].Process) * time.Second)
	}
	r, err := Build([]Input{{Dir: "d", Set: s}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &r.Cell("native", "sequential", Column{N: 100}).Stats.Estimate
	if !e.Windowed {
		t.Fatalf("the fixture's interval is not its drift windows': %+v", e)
	}
	_, printed, out, err := execNotebook(t, writeSet(t, s))
	if err != nil {
		t.Fatalf("notebook failed: %v\n%s", err, out)
	}
	want := fmt.Sprintf("typical %s [%s, %s] over %d processes", formatUS(float64(e.TypicalUS)), formatUS(float64(e.LowUS)), formatUS(float64(e.HighUS)), processes)
	if !strings.Contains(printed, want) {
		t.Errorf("the notebook did not print the report's interval %q:\n%s", want, printed)
	}
}
