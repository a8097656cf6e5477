package proc

import (
	"context"
	"os/exec"
	"strings"
	"sync"
)

// toolFacts are the answers Fact has kept, by question.
var toolFacts = struct {
	sync.Mutex
	answers map[string]*toolAnswer
}{answers: map[string]*toolAnswer{}}

// toolAnswer is one question's: those who ask it at once wait for the
// first to run it.
type toolAnswer struct {
	sync.Mutex
	known bool
	text  string
}

// ToolFact is Output for a question whose answer does not change while
// spawnbench runs: a tool's version, where its runtime library is. The
// first answer to each command line is kept for the process (Fact), so
// that checking many kinds that share a compiler, a browser or Node.js
// asks each tool once (envs asks one clang about a dozen kinds).
func ToolFact(ctx context.Context, argv ...string) (string, error) {
	key := argv
	if len(argv) > 0 && !strings.ContainsRune(argv[0], '/') {
		if path, err := exec.LookPath(argv[0]); err == nil {
			key = append([]string{path}, argv[1:]...)
		}
	}
	return Fact(strings.Join(key, "\x00"), func() (string, error) { return Output(ctx, "", argv...) })
}

// Fact keeps, for the process, the first answer ask gives to the
// question key without an error, for questions about the machine's tools
// that a command line alone does not name (one asked in a toolchain root,
// through a temporary directory). A failure is not kept: the next ask
// runs ask again.
func Fact(key string, ask func() (string, error)) (string, error) {
	toolFacts.Lock()
	a, ok := toolFacts.answers[key]
	if !ok {
		a = &toolAnswer{}
		toolFacts.answers[key] = a
	}
	toolFacts.Unlock()
	a.Lock()
	defer a.Unlock()
	if a.known {
		return a.text, nil
	}
	text, err := ask()
	if err == nil {
		a.known, a.text = true, text
	}
	return text, err
}
