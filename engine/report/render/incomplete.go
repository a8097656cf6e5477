package render

import (
	"fmt"
	"strings"
)

// writeIncomplete says plainly that a set is not everything it meant to be.
func writeIncomplete(b *strings.Builder, notes []string) {
	if len(notes) == 0 {
		return
	}
	b.WriteString("> [!WARNING]\n> **INCOMPLETE RESULT SET.**\n")
	for _, n := range notes {
		fmt.Fprintf(b, "> - %s\n", mdEscape(n))
	}
	b.WriteString("\n")
}
