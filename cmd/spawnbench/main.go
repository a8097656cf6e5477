// Command spawnbench measures how long it takes to spawn a thread in
// WebAssembly environments and natively. It only wires commands to the
// engine packages; see README.md.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"spawnbench/engine/spec"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// rootCmd is the spawnbench command; each subcommand adds itself from its
// own file's init function.
var rootCmd = &cobra.Command{
	Use:           "spawnbench",
	Short:         "Measure thread spawn time in WebAssembly environments and natively",
	SilenceUsage:  true,
	SilenceErrors: true,
	Version:       version,
}

func main() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "spawnbench:", err)
		os.Exit(exitCode(err))
	}
}

// usageError marks bad command-line use; like spec.InputError it exits 2.
type usageError struct{ error }

// exitCode is 2 for bad input (nothing was written) and 1 for anything else.
func exitCode(err error) int {
	var in *spec.InputError
	var use usageError
	if errors.As(err, &in) || errors.As(err, &use) {
		return 2
	}
	return 1
}
