package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"spawnbench/engine/inputerr"

	"golang.org/x/perf/benchmath"
)

// provenanceKeys are the provenance entries whose differences can explain
// a change between two result sets, in the order they are listed.
var provenanceKeys = []string{
	"spec_name", "spec_hash", "spawnbench_version", "go_version",
	"cpu_model", "cores", "kernel", "pinning", "views_last", "views_min_n",
}

// Change is one cell measured by both result sets of a comparison.
type Change struct {
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	Column
	Old *Stats `json:"old"`
	New *Stats `json:"new"`
	// OldSamples and NewSamples count the spawns compared.
	OldSamples int `json:"old_samples"`
	NewSamples int `json:"new_samples"`
	// ChangePct is (new − old) / old of the medians, in percent.
	ChangePct Float `json:"change_pct"`
	// P is the Mann-Whitney U test's p-value; Significant is P < Alpha.
	P           Float   `json:"p"`
	Alpha       float64 `json:"alpha"`
	Significant bool    `json:"significant"`
	// Untrusted is true when either side includes flagged clock samples.
	Untrusted bool `json:"untrusted"`
}

// ProvenanceDiff is one provenance entry that differs between two sets.
type ProvenanceDiff struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Comparison is what spawnbench compare prints.
type Comparison struct {
	Old         Source           `json:"old"`
	New         Source           `json:"new"`
	Differences []ProvenanceDiff `json:"provenance_differences"`
	Changes     []Change         `json:"changes"`
	// OnlyOld and OnlyNew name measured cells the other set lacks.
	OnlyOld []string `json:"only_old,omitempty"`
	OnlyNew []string `json:"only_new,omitempty"`
	// Untrusted names environments whose clock is not trusted in either set.
	Untrusted []string `json:"untrusted_clocks,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// Compare compares every (environment, mode, n, view) cell that both sets
// measured, like benchstat: medians, their change, and whether the U test
// finds the difference significant. Sets that share no cell are an input
// error; sets from different specs are compared cell by cell, with their
// provenance differences listed.
func Compare(oldIn, newIn Input) (*Comparison, error) {
	oldR, err := Build([]Input{oldIn}, Options{})
	if err != nil {
		return nil, err
	}
	newR, err := Build([]Input{newIn}, Options{})
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Old: oldR.Sources[0], New: newR.Sources[0]}
	cmp.Differences = provenanceDiffs(oldIn.Set.Provenance, newIn.Set.Provenance)
	warnings := map[string]bool{}
	for i := range oldR.Cells {
		o := &oldR.Cells[i]
		n := newR.Cell(o.Environment, o.Mode, o.Column)
		if o.Stats == nil {
			if n != nil && n.Stats != nil {
				cmp.OnlyNew = append(cmp.OnlyNew, cellName(n))
			}
			continue
		}
		if n == nil || n.Stats == nil {
			cmp.OnlyOld = append(cmp.OnlyOld, cellName(o))
			continue
		}
		oldSample := &benchmath.Sample{Values: o.Stats.values, Thresholds: &benchmath.DefaultThresholds}
		newSample := &benchmath.Sample{Values: n.Stats.values, Thresholds: &benchmath.DefaultThresholds}
		res := benchmath.AssumeNothing.Compare(oldSample, newSample)
		for _, w := range res.Warnings {
			warnings[fmt.Sprintf("%s: %v", cellName(o), w)] = true
		}
		cmp.Changes = append(cmp.Changes, Change{
			Environment: o.Environment, Mode: o.Mode, Column: o.Column,
			Old: o.Stats, New: n.Stats, OldSamples: o.Samples, NewSamples: n.Samples,
			ChangePct:   Float(100 * (divide(float64(n.Stats.MedianUS), float64(o.Stats.MedianUS)) - 1)),
			P:           Float(res.P),
			Alpha:       res.Alpha,
			Significant: res.P < res.Alpha,
			Untrusted:   o.Untrusted > 0 || n.Untrusted > 0,
		})
	}
	for i := range newR.Cells {
		n := &newR.Cells[i]
		if n.Stats != nil && oldR.Cell(n.Environment, n.Mode, n.Column) == nil {
			cmp.OnlyNew = append(cmp.OnlyNew, cellName(n))
		}
	}
	if len(cmp.Changes) == 0 {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s and %s share no measured (environment, mode, n) cell; nothing to compare",
			oldIn.Dir, newIn.Dir)}
	}
	for _, r := range []*Report{oldR, newR} {
		for _, v := range r.Clocks {
			if !v.Trusted() {
				cmp.Untrusted = appendNew(cmp.Untrusted, v.Environment)
			}
		}
	}
	cmp.Warnings = sortedKeys(warnings)
	return cmp, nil
}

func cellName(c *Cell) string {
	return fmt.Sprintf("%s %s n=%d %s", c.Environment, c.Mode, c.N, viewLabel(c.Last))
}

// provenanceDiffs lists the differing entries of provenanceKeys and of
// each environment's toolchain version.
func provenanceDiffs(a, b map[string]string) []ProvenanceDiff {
	var out []ProvenanceDiff
	for _, k := range provenanceKeys {
		if a[k] != b[k] {
			out = append(out, ProvenanceDiff{Key: k, Old: a[k], New: b[k]})
		}
	}
	ta, errA := jsonMap(a, "toolchains")
	tb, errB := jsonMap(b, "toolchains")
	if errA != nil || errB != nil {
		// Unparseable toolchain lists can still be told apart as text.
		if a["toolchains"] != b["toolchains"] {
			out = append(out, ProvenanceDiff{Key: "toolchains", Old: a["toolchains"], New: b["toolchains"]})
		}
		return out
	}
	envs := map[string]bool{}
	for env := range ta {
		envs[env] = true
	}
	for env := range tb {
		envs[env] = true
	}
	for _, env := range sortedKeys(envs) {
		if ta[env] != tb[env] {
			out = append(out, ProvenanceDiff{Key: "toolchain " + env, Old: ta[env], New: tb[env]})
		}
	}
	return out
}

// Write renders c in format (md, csv or json).
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case FormatMarkdown:
		return c.writeMarkdown(w)
	case FormatCSV:
		return c.writeCSV(w)
	case FormatJSON:
		return writeJSON(w, c)
	}
	return CheckFormat(format)
}

func formatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func formatChange(ch *Change) string {
	return fmt.Sprintf("%+.1f%%", float64(ch.ChangePct))
}

func (c *Comparison) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# spawnbench compare\n\n")
	writeSources(&b, "old", []Source{c.Old})
	writeSources(&b, "new", []Source{c.New})
	for _, env := range c.Untrusted {
		fmt.Fprintf(&b, "> [!WARNING]\n> **CLOCK NOT TRUSTED: %s** in at least one set. Its rows are marked %s; do not draw conclusions from them.\n\n",
			env, untrustedMark)
	}
	if len(c.Differences) == 0 {
		b.WriteString("Same spec, spawnbench, toolchains and machine.\n\n")
	} else {
		b.WriteString("## Provenance differences\n\nThese differ between the sets and may explain any change:\n\n")
		var rows [][]string
		for _, d := range c.Differences {
			rows = append(rows, []string{d.Key, orDash(d.Old), orDash(d.New)})
		}
		mdTable(&b, []string{"", "old", "new"}, "lll", rows)
	}
	b.WriteString("## Median spawn time (µs)\n\n")
	var rows [][]string
	for i := range c.Changes {
		ch := &c.Changes[i]
		mark := ""
		if ch.Untrusted {
			mark = untrustedMark
		}
		sig := "no"
		if ch.Significant {
			sig = "yes"
		}
		rows = append(rows, []string{ch.Environment + mark, ch.Mode, strconv.Itoa(int(ch.N)), viewLabel(ch.Last),
			formatUS(float64(ch.Old.MedianUS)) + " " + formatInterval(float64(ch.Old.CILowUS), float64(ch.Old.CIHighUS), formatUS),
			formatUS(float64(ch.New.MedianUS)) + " " + formatInterval(float64(ch.New.CILowUS), float64(ch.New.CIHighUS), formatUS),
			formatChange(ch), formatP(float64(ch.P)) + fmt.Sprintf(" n=%d+%d", ch.OldSamples, ch.NewSamples), sig})
	}
	mdTable(&b, []string{"Environment", "Mode", "n", "View", "Old median [95% CI]", "New median [95% CI]", "Change", "U test", "Significant"}, "llrlrrrll", rows)
	fmt.Fprintf(&b, "Significant: the Mann-Whitney U test rejects \"same distribution\" at α = %.2f. A change that is not significant is noise until more samples show otherwise. "+
		"The test takes spawns as independent; spawns of one process are not quite, so with few processes (large n) p is optimistic.\n\n",
		benchmath.DefaultThresholds.CompareAlpha)
	if len(c.OnlyOld) > 0 {
		fmt.Fprintf(&b, "Only in old: %s.\n\n", strings.Join(c.OnlyOld, ", "))
	}
	if len(c.OnlyNew) > 0 {
		fmt.Fprintf(&b, "Only in new: %s.\n\n", strings.Join(c.OnlyNew, ", "))
	}
	writeNotes(&b, c.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Comparison) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"environment", "mode", "n", "view_last", "old_median_us", "old_ci_low_us", "old_ci_high_us",
		"new_median_us", "new_ci_low_us", "new_ci_high_us", "change_pct", "p", "old_samples", "new_samples", "significant", "untrusted"}); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, ch := range c.Changes {
		row := []string{ch.Environment, ch.Mode, strconv.Itoa(int(ch.N)), strconv.Itoa(ch.Last),
			csvFloat(ch.Old.MedianUS), csvFloat(ch.Old.CILowUS), csvFloat(ch.Old.CIHighUS),
			csvFloat(ch.New.MedianUS), csvFloat(ch.New.CILowUS), csvFloat(ch.New.CIHighUS),
			csvFloat(ch.ChangePct), csvFloat(ch.P), strconv.Itoa(ch.OldSamples), strconv.Itoa(ch.NewSamples),
			strconv.FormatBool(ch.Significant), strconv.FormatBool(ch.Untrusted)}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}
