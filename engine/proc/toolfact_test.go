package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolFactAsksOnceAndForgetsFailures: a tool asked the same question
// twice runs once; a question that failed is asked again.
func TestToolFactAsksOnceAndForgetsFailures(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	calls := filepath.Join(dir, "calls")
	// Prints its version; fails while the file "broken" exists.
	script := "#!/bin/sh\necho x >> '" + calls + "'\n[ -e '" + filepath.Join(dir, "broken") + "' ] && exit 3\necho tool 1.0\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ran := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "x")
	}
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(dir, "broken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ToolFact(ctx, tool, "--version"); err == nil {
		t.Fatal("a tool that exits 3 gave no error")
	}
	os.Remove(filepath.Join(dir, "broken"))
	for range 3 {
		out, err := ToolFact(ctx, tool, "--version")
		if err != nil || strings.TrimSpace(out) != "tool 1.0" {
			t.Fatalf("ToolFact: %q, %v", out, err)
		}
	}
	if _, err := ToolFact(ctx, tool, "--help"); err != nil {
		t.Fatal(err)
	}
	if n := ran(); n != 3 {
		t.Errorf("the tool ran %d times, want 3: the failure, one --version and one --help", n)
	}
}
