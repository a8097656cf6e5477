package inputerr

import (
	"fmt"
	"slices"
	"strings"
)

// Nearest is the known names closest to given, closest first and in
// known's order among equals, that are near enough to read as a typo of
// it: within an edit distance of a third of its length (at least 1, at
// most 3), counting a swap of two neighbouring letters as one edit, case
// aside. given itself is never among them.
func Nearest(given string, known []string) []string {
	limit := min(max(len([]rune(given))/3, 1), 3)
	best := limit + 1
	var out []string
	for _, k := range known {
		if k == given {
			continue
		}
		d := distance(strings.ToLower(given), strings.ToLower(k))
		switch {
		case d > limit:
		case d < best:
			best, out = d, []string{k}
		case d == best && !slices.Contains(out, k):
			out = append(out, k)
		}
	}
	return out
}

// DidYouMean is "did you mean X?" (or "X or Y?") for the names of
// known nearest to given, quoted with quote (e.g. "%q", "--%s"), or ""
// when none is near.
func DidYouMean(given string, known []string, quote string) string {
	near := Nearest(given, known)
	if len(near) == 0 {
		return ""
	}
	if len(near) > 3 {
		near = near[:3]
	}
	for i, n := range near {
		near[i] = fmt.Sprintf(quote, n)
	}
	return "did you mean " + strings.Join(near, " or ") + "?"
}

// distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two neighbouring
// runes that turn a into b, no rune edited twice.
func distance(a, b string) int {
	r, s := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table over prefixes of r and s.
	prev2, prev, cur := make([]int, len(s)+1), make([]int, len(s)+1), make([]int, len(s)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(s); j++ {
			cost := 1
			if r[i-1] == s[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && r[i-1] == s[j-2] && r[i-2] == s[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(s)]
}
