package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"spawnbench/engine/inputerr"
)

// A mistyped command or flag is bad input whose fix is usually one
// letter away: the error names the nearest commands (cobra's own
// suggestions, within two edits or a prefix) and the nearest flags
// (inputerr.Nearest), or the commands a flag belongs to.

// suggestions makes root's errors for a mistyped command or flag name
// the nearest ones.
func suggestions(root *cobra.Command) {
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(flagError)
}

// unknownCommand is the error for an argument of root that is no
// command.
func unknownCommand(root *cobra.Command, arg string) error {
	hint := ""
	if near := root.SuggestionsFor(arg); len(near) > 0 {
		for i, c := range near {
			near[i] = "`spawnbench " + c + "`"
		}
		hint = "did you mean " + strings.Join(near, " or ") + "? "
	}
	return usageError{fmt.Errorf("unknown command %q; %srun `spawnbench --help` for the commands", arg, hint)}
}

// flagError is every command's error for a flag it cannot parse.
func flagError(cmd *cobra.Command, err error) error {
	hint := ""
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedShortnames() == "" {
		hint = flagHint(cmd, missing.GetSpecifiedName())
	}
	return usageError{fmt.Errorf("%s: %w; %srun `spawnbench %s --help`", cmd.Name(), err, hint, cmd.Name())}
}

// flagHint names cmd's flags nearest to name, else the commands that
// have a flag of that name, e.g. "did you mean --processes? ".
func flagHint(cmd *cobra.Command, name string) string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if guess := inputerr.DidYouMean(name, names, "--%s"); guess != "" {
		return guess + " "
	}
	// Another command's flag, as given or nearly.
	owners := map[string][]string{}
	for _, c := range cmd.Root().Commands() {
		if c == cmd || c.Hidden {
			continue
		}
		var theirs []string
		c.Flags().VisitAll(func(f *pflag.Flag) { theirs = append(theirs, f.Name) })
		if slices.Contains(theirs, name) {
			owners[name] = append(owners[name], c.Name())
		} else if near := inputerr.Nearest(name, theirs); len(near) == 1 {
			owners[near[0]] = append(owners[near[0]], c.Name())
		}
	}
	if len(owners) != 1 {
		return ""
	}
	for flag, cmds := range owners {
		slices.Sort(cmds)
		return fmt.Sprintf("--%s is a flag of %s, not of %s; ", flag, strings.Join(cmds, " and "), cmd.Name())
	}
	return ""
}
