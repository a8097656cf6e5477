package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The command-line reference, docs/cli.md, is written from the command
// tree by cobra's own doc package, so the page says what --help says:
// each command's text, usage, examples and flags, once, in the code. The
// page's prose about more than one command (bad input, environment
// variables) is written by hand around the generated block; the test
// TestCLIReferenceIsCurrent fails when the block is stale, and
// go test ./cmd/spawnbench -run TestCLIReferenceIsCurrent -update
// rewrites it. spawnbench man DIR writes the same help as man pages.

func init() { commands = append(commands, newManCmd) }

func newManCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for each command into DIR",
		Long: `Man writes spawnbench.1 and a page for each command (spawnbench-run.1,
...) into DIR, made from the same help as --help and docs/cli.md. Put them
where man looks, or read one with man -l.`,
		Example: `  spawnbench man ~/.local/share/man/man1 && man spawnbench-run
  spawnbench man /tmp/man && man -l /tmp/man/spawnbench-plan.1`,
		Args: exactArgs(1, "give the directory for the man pages, e.g. spawnbench man ~/.local/share/man/man1"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{Title: "SPAWNBENCH", Section: "1", Source: "spawnbench"}
			if err := doc.GenManTree(root, header, args[0]); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			return nil
		},
	}
}

// cliReference is the generated part of docs/cli.md: a section per
// command, the root first, then each command (the hidden wasmtime one
// too: other processes start it) and its subcommands, in the order of
// --help, with links between them as anchors on the one page.
func cliReference(root *cobra.Command) (string, error) {
	// What Execute adds before it runs anything, so the page shows what
	// --help does.
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	var b bytes.Buffer
	var write func(c *cobra.Command) error
	write = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true // no date: the page changes only with the code
		if err := doc.GenMarkdownCustom(c, &b, anchor); err != nil {
			return fmt.Errorf("cli reference of %s: %w", c.CommandPath(), err)
		}
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.IsAdditionalHelpTopicCommand() || (sub.Hidden && c != root) {
				continue
			}
			if err := write(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(root); err != nil {
		return "", err
	}
	return b.String(), nil
}

// anchor turns the doc package's link to a command's own page
// ("spawnbench_plan.md") into the anchor of its section on this one
// ("#spawnbench-plan").
func anchor(page string) string {
	return "#" + strings.ReplaceAll(strings.TrimSuffix(page, ".md"), "_", "-")
}
