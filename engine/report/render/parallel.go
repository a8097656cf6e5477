package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeParallel shows, for parallel-mode cells, the first thread's
// latency, the makespan and the start rate (parallel.go), and the
// makespan's ratio to the baseline's.
func writeParallel(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for i := range r.Cells {
		c := &r.Cells[i]
		p := c.Parallel
		if p == nil {
			continue
		}
		ratio := "n/a"
		if q := p.MakespanRatio; q != nil {
			ratio = textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(q)
		}
		after := "—" // one thread always starts after its one create
		if c.N > 1 {
			after = fmt.Sprintf("%.0f%%", 100*float64(p.AfterLoop))
		}
		rows = append(rows, []string{c.Environment, strconv.Itoa(int(c.N)), estimateText(&p.First), estimateText(&p.Makespan),
			formatRate(float64(p.StartsPerSecond)), after, ratio})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Parallel mode: first thread, makespan and start rate\n\n")
	mdTable(b, []string{"Environment", "n", "First thread's latency", "Makespan (first create to last child start)", "Threads started per second",
		"Started after the create loop", "Makespan ÷ " + r.Baseline}, "lrrrrrr", rows)
	b.WriteString("A parallel cell's spawn times include each thread's wait behind the threads created before it: where a host starts one worker at a time, " +
		"the k-th spawn's time is mostly that queue, so its median grows with n by construction. " +
		"These quantities do not: the first thread's latency (spawn 0, behind nothing), the makespan (first pthread_create to the last child's first clock reading, " +
		"rebuilt from the create times, a lower bound short by the create loop's own work), and n over the makespan. " +
		"\"Started after the create loop\" is the median over processes of the share of threads that started only once every create had returned: near 100% is a queue. " +
		"Each figure is over processes, as every figure here.\n\n")
}

// formatRate prints a rate per second to about three digits.
func formatRate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return textfmt.Ratio(v) + "/s"
}
