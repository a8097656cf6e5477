package render

import (
	"fmt"
	"strings"
)

// writeNotes renders the caveats of a report or a comparison.
func writeNotes(b *strings.Builder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	b.WriteString("## Statistical notes\n\n")
	for _, w := range warnings {
		fmt.Fprintf(b, "- %s\n", w)
	}
	b.WriteString("\n")
}
