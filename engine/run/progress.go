package run

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"spawnbench/engine/spec"
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

// cellDone prints one line per finished cell.
func (p progress) cellDone(c spec.Cell, statuses map[string]int, median time.Duration) {
	if p.w == nil {
		return
	}
	p.pause()
	var parts []string
	for s, k := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", k, s))
	}
	sort.Strings(parts)
	med := "no samples"
	if median >= 0 {
		med = fmt.Sprintf("median spawn %.1f µs", float64(median)/1e3)
	}
	fmt.Fprintf(p.w, "%-20s %-10s n=%-5d processes: %s; %s\n", c.Env.Name, c.Mode, c.N, strings.Join(parts, ", "), med)
	p.resume()
}
