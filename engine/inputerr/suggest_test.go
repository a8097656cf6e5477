package inputerr

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"samples", "samples", 0},
		{"sampels", "samples", 1}, // a swap is one edit
		{"proceses", "processes", 1},
		{"nativ", "native", 1},
		{"reprot", "report", 1},
		{"ca", "abc", 3}, // optimal string alignment: no rune edited twice
		{"µs", "ms", 1},  // runes, not bytes
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	fields := []string{"wamr", "min", "processes", "max_processes", "precision", "pause", "warmup"}
	for _, c := range []struct {
		given string
		want  []string
	}{
		{"proceses", []string{"processes"}},
		{"Processes", []string{"processes"}}, // case aside
		{"paus", []string{"pause"}},
		{"mn", []string{"min"}},
		{"timeout", nil}, // nothing near: no guess
		{"wasi", nil},    // two edits of four letters are no typo
		{"min", nil},     // the name itself is no suggestion
	} {
		if got := Nearest(c.given, fields); !slices.Equal(got, c.want) {
			t.Errorf("Nearest(%q) = %q, want %q", c.given, got, c.want)
		}
	}
	if got := DidYouMean("wasmtime-56", []string{"wasmtime-46", "wasmtime-36", "native"}, "%q"); got != `did you mean "wasmtime-46" or "wasmtime-36"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", []string{"native"}, "%q"); got != "" {
		t.Errorf("DidYouMean of nothing near = %q", got)
	}
}
