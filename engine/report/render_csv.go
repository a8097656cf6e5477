package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvFloat leaves absent values empty and spells unbounded ones +Inf, which
// pandas and spreadsheets both read.
func csvFloat(v Float) string {
	return strconv.FormatFloat(float64(v), 'g', -1, 64)
}

// writeCSV writes one row per cell: a tidy table to filter and pivot.
func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"environment", "mode", "n", "view_last", "classic", "samples", "processes", "failures",
		"untrusted_samples", "typical_us", "low_us", "high_us", "precision", "processes_used", "mean_us", "median_us", "p95_us",
		"baseline", "ratio", "ratio_low", "ratio_high", "family", "busy", "verdict", "unstable", "spread",
		"others_share", "steal_share", "load_rho", "load_p", "load_ratio", "busy_evidence", "machine"}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	reports := []*Report{r}
	if len(r.Machines) > 0 {
		reports = nil
		for _, m := range r.Machines {
			reports = append(reports, m.Report)
		}
	}
	for _, r := range reports {
		if err := r.writeCSVRows(cw); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// writeCSVRows writes the rows of a one-machine report.
func (r *Report) writeCSVRows(cw *csv.Writer) error {
	for i := range r.Cells {
		c := &r.Cells[i]
		var failures []string
		for _, st := range sortedKeys(c.Failures) {
			failures = append(failures, fmt.Sprintf("%s=%d", st, c.Failures[st]))
		}
		row := []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), strconv.Itoa(c.Last), c.ClassicText(),
			strconv.Itoa(c.Samples), strconv.Itoa(c.Processes), strings.Join(failures, ";"), strconv.Itoa(c.Untrusted)}
		if s := c.Stats; s != nil {
			row = append(row, csvFloat(s.TypicalUS), csvFloat(s.LowUS), csvFloat(s.HighUS), csvFloat(s.Precision), strconv.Itoa(s.Processes),
				csvFloat(s.MeanUS), csvFloat(s.MedianUS), csvFloat(s.P95US))
		} else {
			row = append(row, "", "", "", "", "", "", "", "")
		}
		if q := r.ratio(c.Environment, c.Mode, c.Column); q != nil {
			row = append(row, q.Baseline, csvFloat(q.Ratio), csvFloat(q.Low), csvFloat(q.High))
		} else {
			row = append(row, "", "", "", "")
		}
		n := c.Judgement
		busy, others, steal, rho, p, ratio := "", "", "", "", "", ""
		if n.BusyKnown {
			busy, others, steal = strconv.FormatBool(n.Busy), csvFloat(n.OthersShare), csvFloat(n.StealShare)
		}
		if n.LoadTested > 0 {
			rho, p, ratio = csvFloat(n.LoadRho), csvFloat(n.LoadP), csvFloat(n.LoadRatio)
		}
		row = append(row, c.Family, busy, n.Verdict, strconv.FormatBool(n.Unstable), csvFloat(n.Spread),
			others, steal, rho, p, ratio, n.BusyEvidence, c.Machine)
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	return nil
}
