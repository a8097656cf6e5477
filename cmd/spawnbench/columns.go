package main

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Text output fits a terminal of textWidth columns by default: what does
// not fit in a row (a toolchain's version, an install command, a shard's
// cells) goes on indented lines of its own, and --wide prints the wide
// rows instead, for a wide terminal or a grep.

// textWidth is the columns default text output fits in, counted in runes.
const textWidth = 100

// wideFlag adds --wide, the one way a command asks for its wide rows.
func wideFlag(cmd *cobra.Command, wide *bool, what string) {
	cmd.Flags().BoolVar(wide, "wide", false, "print wide rows ("+what+") instead of fitting "+strconv.Itoa(textWidth)+" columns")
}

// table is text in columns two spaces apart, each as wide as its widest
// cell in runes; the columns marked right are aligned right (numbers).
type table struct {
	right map[int]bool
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if t.right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// wrap breaks text at spaces into lines of at most textWidth runes, the
// first led by first and the others by indent; a word longer than a
// line stays whole on a line of its own.
func wrap(text, first, indent string) string {
	var b strings.Builder
	line, n := first, utf8.RuneCountInString(first)
	empty := true
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if !empty && n+1+wn > textWidth {
			b.WriteString(line + "\n")
			line, n, empty = indent, utf8.RuneCountInString(indent), true
		}
		if !empty {
			line, n = line+" ", n+1
		}
		line, n, empty = line+w, n+wn, false
	}
	b.WriteString(line + "\n")
	return b.String()
}
