package proc

import (
	"context"
	"os/exec"
	"strings"
	"sync"
)

// toolFacts are the answers ToolFact has kept, by resolved command line.
var toolFacts = struct {
	sync.Mutex
	answers map[string]*toolAnswer
}{answers: map[string]*toolAnswer{}}

// toolAnswer is one command line's: those who ask it at once wait for
// the first to run it.
type toolAnswer struct {
	sync.Mutex
	known bool
	text  string
}

// ToolFact is Output for a question whose answer does not change while
// spawnbench runs: a tool's version, where its runtime library is. The
// first answer to each command line is kept for the process, so that
// checking many kinds that share a compiler, a browser or Node.js asks
// each tool once (envs asks one clang about a dozen kinds). A failure is
// not kept: the next ask runs the command again.
func ToolFact(ctx context.Context, argv ...string) (string, error) {
	key := argv
	if len(argv) > 0 && !strings.ContainsRune(argv[0], '/') {
		if path, err := exec.LookPath(argv[0]); err == nil {
			key = append([]string{path}, argv[1:]...)
		}
	}
	k := strings.Join(key, "\x00")
	toolFacts.Lock()
	a, ok := toolFacts.answers[k]
	if !ok {
		a = &toolAnswer{}
		toolFacts.answers[k] = a
	}
	toolFacts.Unlock()
	a.Lock()
	defer a.Unlock()
	if a.known {
		return a.text, nil
	}
	text, err := Output(ctx, "", argv...)
	if err == nil {
		a.known, a.text = true, text
	}
	return text, err
}
