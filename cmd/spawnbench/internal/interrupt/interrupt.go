// Package interrupt catches Ctrl-C and SIGTERM from the first moment
// spawnbench's own code runs, so that one at any instant ends spawnbench
// with exit 130, never by the signal: a scheduler that preempts a task at
// its start, or a user who changes their mind, gets the same answer as
// one who interrupts a long run.
//
// The catching starts in this package's init, which has only the standard
// library below it and so runs among the first of the binary's (before
// the CUE, Arrow and protobuf packages' own), and keeps the signal until
// main calls Start. Only the kernel's loading of the binary and the Go
// runtime's own start come before it: milliseconds of CPU for a binary
// this large, in which a signal still ends the process as the kernel's
// default says.
//
// Work that stops cleanly when its context is cancelled (a run or a
// calibration recording into a result set, a report or a merge writing
// files) holds interrupts: one then cancels the context, and the work
// records what it measured and returns. At any other moment nothing of a
// result set is being written, and spawnbench exits 130 at once.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// ExitCode is the exit status of an interrupted spawnbench.
const ExitCode = 130

// hostCommands are the subcommands that run a benchmark (a wasi-threads
// module on the embedded Wasmtime or on wazero): a measured process keeps
// the signal dispositions a plain runtime has. They are read here, in
// init, before any command is registered.
var hostCommands = []string{"wasmtime", "wazero"}

var (
	// caught receives the signals from init on; one waiting is enough.
	caught = make(chan os.Signal, 1)
	hosted bool

	mu     sync.Mutex
	held   int
	cancel context.CancelFunc
)

func init() {
	if len(os.Args) > 1 && slices.Contains(hostCommands, os.Args[1]) {
		hosted = true
		return
	}
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
}

// Start returns the context that the first interrupt cancels, including
// one that came before Start. While no work holds interrupts, that
// interrupt also ends spawnbench with ExitCode at once. Call it once,
// first in main.
func Start() context.Context {
	if hosted {
		return context.Background()
	}
	ctx, stop := context.WithCancel(context.Background())
	mu.Lock()
	cancel = stop
	mu.Unlock()
	go func() {
		for sig := range caught {
			mu.Lock()
			cancel()
			if held == 0 {
				fmt.Fprintf(os.Stderr, "spawnbench: interrupted (%v); nothing was being written\n", sig)
				os.Exit(ExitCode)
			}
			mu.Unlock()
		}
	}()
	return ctx
}

// Hold makes an interrupt cancel Start's context instead of ending
// spawnbench, until release: the holder stops its work and returns the
// context's error, which exits with ExitCode. Holds nest.
func Hold() (release func()) {
	mu.Lock()
	held++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			held--
			mu.Unlock()
		})
	}
}
