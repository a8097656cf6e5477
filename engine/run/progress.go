package run

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"spawnbench/engine/results"
)

// progress shows a bar on a terminal and plain lines elsewhere (CI logs,
// pipes), where a bar would be noise.
type progress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer, total int) progress {
	p := progress{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("processes"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish())
	}
	return p
}

func (p progress) add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// pause clears the bar so a message can be printed on a clean line.
func (p progress) pause() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p progress) resume() {
	if p.bar != nil {
		_ = p.bar.RenderBlank()
	}
}

func (p progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// cellDone prints one line per finished cell: its processes by status
// and the median spawn of its ok measured processes in this set.
func (p progress) cellDone(set *results.Set, c cell) {
	if p.w == nil {
		return
	}
	p.pause()
	statuses := map[string]int{}
	ok := map[int32]bool{}
	for _, r := range set.Runs {
		if !r.Warmup && r.Environment == c.env.Name && r.Mode == c.mode && int(r.N) == c.n {
			statuses[r.Status]++
			ok[r.Process] = r.Status == results.StatusOK
		}
	}
	var spawns []float64
	for _, s := range set.Samples {
		if !s.Warmup && ok[s.Process] && s.Environment == c.env.Name && s.Mode == c.mode && int(s.N) == c.n {
			spawns = append(spawns, float64(s.SpawnNS))
		}
	}
	var parts []string
	for s, k := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", k, s))
	}
	sort.Strings(parts)
	med := "no samples"
	if len(spawns) > 0 {
		med = fmt.Sprintf("median spawn %.1f µs", results.Median(spawns)/1e3)
	}
	fmt.Fprintf(p.w, "%-20s %-10s n=%-5d processes: %s; %s\n", c.env.Name, c.mode, c.n, strings.Join(parts, ", "), med)
	p.resume()
}
