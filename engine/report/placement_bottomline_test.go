package report_test

import (
	"encoding/json"
	"math"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// Where both an environment and the baseline have one-CPU twins, the
// bottom line's headline is the twins' ratio (like placement with like),
// at the JSON path readers use, with the free ratio beside it; a twin has
// no row of its own.
func TestBottomLineHeadlineIsOneCPU(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.OneCPUSet(t))
	bl := r.BottomLine
	if bl == nil || len(bl.Rows) != 2 {
		t.Fatalf("bottom line %+v, want rows for native and wasi-threads only", bl)
	}
	row := bl.Rows[1]
	if row.Environment != "wasi-threads" {
		t.Fatalf("second row is %s, want wasi-threads", row.Environment)
	}
	for _, c := range []*report.BottomCell{row.First, row.Steady} {
		if c == nil || c.Placement != "one-cpu" || c.Ratio == nil || c.Ratio.Baseline != "native@one-cpu" {
			t.Fatalf("headline %+v, want the one-CPU ratio to native@one-cpu", c)
		}
		if q := float64(c.Ratio.Ratio); math.Abs(q/3-1) > 0.15 {
			t.Errorf("one-CPU ratio %.2f, want about 3", q)
		}
		if c.Free == nil || c.Free.Ratio == nil || math.Abs(float64(c.Free.Ratio.Ratio)/2-1) > 0.15 || c.Free.Placement != "free" {
			t.Errorf("free beside it: %+v, want about 2, free", c.Free)
		}
	}
	if base := bl.Rows[0]; base.First == nil || base.First.Placement != "one-cpu" || base.First.Ratio != nil || base.First.Free == nil {
		t.Errorf("baseline row %+v, want its one-CPU figure, no ratio, the free figure beside", base.First)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		BottomLine struct {
			Rows []struct {
				Steady struct {
					Ratio struct {
						Ratio float64 `json:"ratio"`
					} `json:"ratio"`
					Placement string `json:"placement"`
				} `json:"steady"`
			} `json:"rows"`
		} `json:"bottom_line"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.BottomLine.Rows[1].Steady; got.Placement != "one-cpu" || got.Ratio.Ratio != float64(row.Steady.Ratio.Ratio) {
		t.Errorf("JSON bottom_line.rows[1].steady: %+v, want the one-CPU headline", got)
	}
}
