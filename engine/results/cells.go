package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/stats"
)

// CellsFile holds the report's figures, one row per measured cell and
// view, as the report computed them: a notebook reads them instead of
// computing them again. It is derived from the set (written with the
// report, never read back by spawnbench), stamped with the set's ID,
// generation and provenance so a stale one can be told. The report's CSV
// is the same table as text (EncodeCellsCSV): one list of columns makes
// both, so their names, units and values cannot drift apart.
const CellsFile = "cells.parquet"

// CellFigure is one row of cells.parquet.
type CellFigure struct {
	Machine     string
	Environment string
	Kind        string
	Host        string
	Family      string
	Mode        string
	N           int32
	// ViewLast is 0 for every spawn of each process, else k for its last
	// k spawns.
	ViewLast int32
	// Processes counts the measured processes, OKProcesses those whose
	// spawns the figure is computed over, Samples their spawns, Untrusted
	// those of them read from a clock not trusted.
	Processes, OKProcesses, Samples, Untrusted int32
	// ClockCouldMove is true where the clock is in doubt for the figure
	// (stats.ClockRule).
	ClockCouldMove bool
	// Failures counts the processes that did not end ok, by status, as
	// "status=count" joined by ";" ("" when none failed).
	Failures string
	// TypicalUS, LowUS and HighUS are the figure and its 95% interval
	// over processes, µs; Precision the interval's relative half-width.
	// NaN (null) where there is none.
	TypicalUS, LowUS, HighUS, Precision float64
	// MeanUS, MedianUS and P95US describe the pooled spawns.
	MeanUS, MedianUS, P95US float64
	// Verdict is stable, unstable or not judged, Reason why; Busy the
	// busy rule's verdict; Drifted and Clusters the process-level
	// evidence behind "unstable".
	Verdict, Reason string
	Busy, Drifted   bool
	Clusters        int32
	// Spread is the interquartile range of the processes' typical spawns
	// over their median (NaN for a cell not judged): a description.
	Spread float64
	// OthersShare and StealShare are the machine's load beside the cell
	// over its wall time (NaN, null, where unrecorded); LoadRho, LoadP and
	// LoadRatio the test of its figure against that load (NaN where
	// untested); BusyEvidence the busy flag's evidence in words.
	OthersShare, StealShare   float64
	LoadRho, LoadP, LoadRatio float64
	BusyEvidence              string
	// Occasions is the number of occasions the figure is computed over
	// (0: over processes); OccasionSD, ProcessSD and SpawnSD the cell's
	// variance components as standard deviations of the log spawn time,
	// Dominant the level that sets its interval.
	Occasions                      int32
	OccasionSD, ProcessSD, SpawnSD float64
	Dominant                       string
	// Baseline, Ratio, RatioLow and RatioHigh divide the figure by the
	// baseline's of the same cell, with the ratio's 95% interval.
	Baseline                   string
	Ratio, RatioLow, RatioHigh float64
	// RatioDivisor is what the ratio divides by: "cell", the baseline's
	// figure, or "lower-cluster", the lower of its two process clusters;
	// RatioDivisorUS is that figure and RatioDivisorProcesses the
	// processes behind it.
	RatioDivisor          string
	RatioDivisorUS        float64
	RatioDivisorProcesses *int32
	// BottomLine is "first spawn" or "steady state" for the cells the
	// report's bottom line shows, else "".
	BottomLine string
}

var cellColumns = []column[CellFigure]{
	dictStringCol("machine", func(r *CellFigure) *string { return &r.Machine }).doc("the ID of the machine that measured the cell"),
	stringCol("environment", func(r *CellFigure) *string { return &r.Environment }).doc("the environment's name"),
	stringCol("kind", func(r *CellFigure) *string { return &r.Kind }).doc("the short form of its (payload, host) pair"),
	dictStringCol("host", func(r *CellFigure) *string { return &r.Host }).doc("what ran it"),
	dictStringCol("family", func(r *CellFigure) *string { return &r.Family }).doc("the host family the report groups it in: native, Wasmtime, WAMR, Wasmer, JS hosts, Emscripten, raw workers, cooperative threads, other"),
	stringCol("mode", func(r *CellFigure) *string { return &r.Mode }).doc("sequential or parallel"),
	int32Col("n", func(r *CellFigure) *int32 { return &r.N }).doc("threads spawned per process"),
	int32Col("view_last", func(r *CellFigure) *int32 { return &r.ViewLast }).doc("0: every spawn of each process; k: only its last k spawns"),
	int32Col("processes", func(r *CellFigure) *int32 { return &r.Processes }).doc("measured processes of the cell, whatever their status"),
	addedLater(optStringCol("failures", func(r *CellFigure) *string { return &r.Failures })).doc("the processes that did not end ok, by status, as status=count joined by ';' (timeout=1;oom=2); null when none failed"),
	int32Col("ok_processes", func(r *CellFigure) *int32 { return &r.OKProcesses }).doc("the processes the figure is computed over (ended ok, with spawns in the view): how many independent values stand behind it"),
	int32Col("samples", func(r *CellFigure) *int32 { return &r.Samples }).doc("spawns in the view of the ok processes"),
	addedLater(int32Col("untrusted_samples", func(r *CellFigure) *int32 { return &r.Untrusted })).doc("those of the samples whose clock is not trusted (samples.parquet's clock_trusted false)"),
	addedLater(boolCol("clock_could_move", func(r *CellFigure) *bool { return &r.ClockCouldMove })).doc("true where the report marks the figure † and its clock warning names the cell: " + stats.ClockRule.Summary),
	optFloat64Col("typical_us", func(r *CellFigure) *float64 { return &r.TypicalUS }).doc("the cell's typical spawn, µs: the exponentiated 20% trimmed mean of its processes' log typical spawns"),
	optFloat64Col("low_us", func(r *CellFigure) *float64 { return &r.LowUS }).doc(fmt.Sprintf("the lower bound of its %g%% interval over processes, µs; null under %d processes", 100*stats.Confidence, stats.MinIntervalProcesses)),
	optFloat64Col("high_us", func(r *CellFigure) *float64 { return &r.HighUS }).doc(fmt.Sprintf("the upper bound, µs; null under %d processes", stats.MinIntervalProcesses)),
	optFloat64Col("precision", func(r *CellFigure) *float64 { return &r.Precision }).doc("the interval's half-width over the figure; null without an interval"),
	optFloat64Col("mean_us", func(r *CellFigure) *float64 { return &r.MeanUS }).doc("the mean of every spawn pooled (the earlier study's statistic), µs"),
	optFloat64Col("median_us", func(r *CellFigure) *float64 { return &r.MedianUS }).doc("the median of every spawn pooled, µs (no interval: pooled spawns are not independent)"),
	optFloat64Col("p95_us", func(r *CellFigure) *float64 { return &r.P95US }).doc("the 95th percentile of every spawn pooled, µs"),
	stringCol("verdict", func(r *CellFigure) *string { return &r.Verdict }).doc(fmt.Sprintf("stable, unstable (%s) or not judged (%s)", stats.UnstableRule.Summary, stats.NotJudgedRule.Summary)),
	optStringCol("reason", func(r *CellFigure) *string { return &r.Reason }).doc("why the cell is unstable or not judged; null for a stable cell"),
	boolCol("busy", func(r *CellFigure) *bool { return &r.Busy }).doc(stats.BusyRule.Summary),
	addedLater(optFloat64Col("others_share", func(r *CellFigure) *float64 { return &r.OthersShare })).doc("others' CPU time (less spawnbench's own work) over the wall time, summed over the cell's processes (1 is one CPU's worth); null where unrecorded"),
	addedLater(optFloat64Col("steal_share", func(r *CellFigure) *float64 { return &r.StealShare })).doc("the hypervisor's steal over the wall time, summed over the cell's processes; null where unrecorded"),
	addedLater(optFloat64Col("load_rho", func(r *CellFigure) *float64 { return &r.LoadRho })).doc(fmt.Sprintf("the correlation of each process's load share (others' CPU less own work, plus steal, over its wall time) with the rank of its figure; null under %d processes", stats.BusyMinProcesses)),
	addedLater(optFloat64Col("load_p", func(r *CellFigure) *float64 { return &r.LoadP })).doc(fmt.Sprintf("the one-sided p-value that the figure rises with the load; busy needs p < %g", stats.BusyAlpha)),
	addedLater(optFloat64Col("load_ratio", func(r *CellFigure) *float64 { return &r.LoadRatio })).doc(fmt.Sprintf("the median figure of the most-loaded half of the processes over the least-loaded half's; busy needs %g or more", stats.BusyMinRatio)),
	addedLater(optStringCol("busy_evidence", func(r *CellFigure) *string { return &r.BusyEvidence })).doc("what makes the cell busy, with its numbers; null for a cell that is not"),
	boolCol("drifted", func(r *CellFigure) *bool { return &r.Drifted }).doc(fmt.Sprintf("the processes of the run's later half differ from its earlier half (p < %g)", stats.DriftAlpha)),
	int32Col("clusters", func(r *CellFigure) *int32 { return &r.Clusters }).doc("2 when the processes fall into two clusters, else 0"),
	addedLater(optFloat64Col("spread", func(r *CellFigure) *float64 { return &r.Spread })).doc("the interquartile range of the ok processes' typical spawns over their median: a description, not a verdict; null for a cell not judged"),
	int32Col("occasions", func(r *CellFigure) *int32 { return &r.Occasions }).doc("the occasions the figure and interval are computed over (3 or more); 0 when over processes"),
	optFloat64Col("occasion_sd", func(r *CellFigure) *float64 { return &r.OccasionSD }).doc("between-occasion standard deviation of the log spawn time (all-spawns view); null with one occasion"),
	optFloat64Col("process_sd", func(r *CellFigure) *float64 { return &r.ProcessSD }).doc("between-process standard deviation of the log spawn time, within an occasion"),
	optFloat64Col("spawn_sd", func(r *CellFigure) *float64 { return &r.SpawnSD }).doc("within-process standard deviation of the log spawn time; null for one spawn a process"),
	optStringCol("dominant", func(r *CellFigure) *string { return &r.Dominant }).doc("the level whose variance weighs most in the figure's: occasions, processes or spawns"),
	optStringCol("baseline", func(r *CellFigure) *string { return &r.Baseline }).doc("the environment the ratio divides by; null where there is no ratio"),
	optFloat64Col("ratio", func(r *CellFigure) *float64 { return &r.Ratio }).doc("typical ÷ the baseline's typical in the same machine, mode, n and view, or ÷ the typical of the lower of its two clusters of processes (ratio_divisor)"),
	optFloat64Col("ratio_low", func(r *CellFigure) *float64 { return &r.RatioLow }).doc(fmt.Sprintf("the ratio's 95%% interval (Yuen–Welch over both cells' processes), lower bound; null under %d processes a side", stats.MinIntervalProcesses)),
	optFloat64Col("ratio_high", func(r *CellFigure) *float64 { return &r.RatioHigh }).doc(fmt.Sprintf("the upper bound; null under %d processes a side", stats.MinIntervalProcesses)),
	addedLater(optStringCol("ratio_divisor", func(r *CellFigure) *string { return &r.RatioDivisor })).doc("what the ratio divides by: 'cell', the baseline cell's typical; 'lower-cluster', where the baseline cell's processes fall into two clusters (clusters = 2), the typical of the faster one, which does not move with the clusters' shares from run to run; null where there is no ratio"),
	addedLater(optFloat64Col("ratio_divisor_us", func(r *CellFigure) *float64 { return &r.RatioDivisorUS })).doc("the figure the ratio divides by, µs: the baseline's typical, or its lower cluster's; null where there is no ratio"),
	addedLater(optInt32Col("ratio_divisor_processes", func(r *CellFigure) **int32 { return &r.RatioDivisorProcesses })).doc("the baseline's processes behind ratio_divisor_us: the second count of the report's (k : k_native); null where there is no ratio"),
	optStringCol("bottom_line", func(r *CellFigure) *string { return &r.BottomLine }).doc("'first spawn' or 'steady state' for the cells the report's bottom line shows (a host's one-CPU twin, NAME@one-cpu, where the row shows its figure); null for the rest"),
}

// optFloat64Col stores NaN and ±Inf as null: a figure that is not there.
func optFloat64Col[T any](name string, f func(*T) *float64) column[T] {
	return column[T]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		put: func(b array.Builder, r *T) {
			if v := *f(r); !math.IsNaN(v) && !math.IsInf(v, 0) {
				b.(*array.Float64Builder).Append(v)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *T) {
			*f(r) = math.NaN()
			if !a.IsNull(i) {
				*f(r) = a.(*array.Float64).Value(i)
			}
		},
	}
}

// WriteCells writes a report's figures of set into dir's cells.parquet,
// stamped with the set's ID, generation and provenance (its format that
// of the file, FormatVersion).
func WriteCells(dir string, set *Set, rows []CellFigure) error {
	return atomicfile.Write(filepath.Join(dir, CellsFile), func(w io.Writer) error { return EncodeSetCells(w, set, rows) })
}

// EncodeSetCells writes a report's figures of set to w as WriteCells
// writes them into the set: `spawnbench report DIR -o FILE.parquet` of
// one set writes the set's own cells.parquet.
func EncodeSetCells(w io.Writer, set *Set, rows []CellFigure) error {
	prov := set.Provenance
	prov.Format = FormatVersion
	js, err := json.Marshal(prov)
	if err != nil {
		return fmt.Errorf("encode provenance: %w", err)
	}
	meta := map[string]string{metaProvenance: string(js), metaGeneration: strconv.FormatInt(set.Generation, 10), metaSet: set.ID}
	return encodeTable(w, cellColumns, rows, meta)
}

// EncodeCells writes a report's figures as one Parquet file to w, for
// `spawnbench report --format parquet` (of no one set: no set ID).
func EncodeCells(w io.Writer, rows []CellFigure) error {
	meta := map[string]string{metaProvenance: `{"format":` + strconv.Itoa(FormatVersion) + `}`, metaGeneration: "0", metaSet: ""}
	return encodeTable(w, cellColumns, rows, meta)
}

// EncodeCellsCSV writes a report's figures as CSV to w: cells.parquet's
// columns in its order, under its names, each value as Parquet holds it
// (numbers in full precision, booleans as true and false, null as an
// empty field).
func EncodeCellsCSV(w io.Writer, rows []CellFigure) error {
	rec := recordOf(cellColumns, rows)
	defer rec.Release()
	cw := csv.NewWriter(w)
	header := make([]string, len(cellColumns))
	for i, c := range cellColumns {
		header[i] = c.field.Name
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	line := make([]string, len(cellColumns))
	for i := 0; i < int(rec.NumRows()); i++ {
		for c := range cellColumns {
			v, err := csvValue(rec.Column(c), i)
			if err != nil {
				return fmt.Errorf("write CSV column %s: %w", cellColumns[c].field.Name, err)
			}
			line[c] = v
		}
		if err := cw.Write(line); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// csvValue is row i of a as CSV text.
func csvValue(a arrow.Array, i int) (string, error) {
	if a.IsNull(i) {
		return "", nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.Dictionary:
		return a.Dictionary().(*array.String).Value(a.GetValueIndex(i)), nil
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64), nil
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i)), nil
	}
	return "", fmt.Errorf("no CSV form for type %s", a.DataType())
}

// ReadCells reads a cells.parquet, for tests and tools.
func ReadCells(dir string) ([]CellFigure, error) {
	t, err := readTable(filepath.Join(dir, CellsFile), cellColumns)
	return t.rows, err
}
