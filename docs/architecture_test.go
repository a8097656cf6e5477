package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The package graph in docs/architecture.md is generated from the code,
// between these markers; go test ./docs -update rewrites it.
const (
	graphStart = "<!-- package graph: generated from go list by docs/architecture_test.go (go test ./docs -update) -->"
	graphEnd   = "<!-- end package graph -->"
)

// modulePackages are the module's packages that hold code (docs, with
// tests only, aside) and, for each, the module packages it imports.
func modulePackages(root string) (map[string][]string, error) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{len .GoFiles}}{{len .CgoFiles}}|{{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 || f[1] == "00" {
			continue
		}
		imports[f[0]] = nil
		for _, imp := range strings.Fields(f[2]) {
			if imp == "spawnbench" || strings.HasPrefix(imp, "spawnbench/") {
				imports[f[0]] = append(imports[f[0]], imp)
			}
		}
	}
	return imports, nil
}

// packageGraph draws the module's import graph as Mermaid, each package
// on its layer (how far it stands above the packages that import nothing
// of the module's), with only the imports that no longer path implies
// (a transitive reduction), so the picture stays readable.
func packageGraph(imports map[string][]string) string {
	reach := map[string]map[string]bool{}
	var reachOf func(p string) map[string]bool
	reachOf = func(p string) map[string]bool {
		if r, ok := reach[p]; ok {
			return r
		}
		r := map[string]bool{}
		reach[p] = r
		for _, q := range imports[p] {
			r[q] = true
			for s := range reachOf(q) {
				r[s] = true
			}
		}
		return r
	}
	layer := map[string]int{}
	var layerOf func(p string) int
	layerOf = func(p string) int {
		if l, ok := layer[p]; ok {
			return l
		}
		l := 0
		for _, q := range imports[p] {
			l = max(l, layerOf(q)+1)
		}
		layer[p] = l
		return l
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
		layerOf(p)
	}
	sort.Slice(pkgs, func(i, j int) bool {
		if layer[pkgs[i]] != layer[pkgs[j]] {
			return layer[pkgs[i]] > layer[pkgs[j]]
		}
		return pkgs[i] < pkgs[j]
	})
	id := func(p string) string { return strings.NewReplacer("/", "_", ".", "_").Replace(p) }
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart TD\n")
	for l := layer[pkgs[0]]; l >= 0; l-- {
		fmt.Fprintf(&b, "  subgraph layer%d [layer %d]\n", l, l)
		for _, p := range pkgs {
			if layer[p] == l {
				fmt.Fprintf(&b, "    %s[%s]\n", id(p), strings.TrimPrefix(p, "spawnbench/"))
			}
		}
		b.WriteString("  end\n")
	}
	for _, p := range pkgs {
		deps := append([]string(nil), imports[p]...)
		sort.Strings(deps)
		for _, q := range deps {
			implied := false
			for _, other := range imports[p] {
				if other != q && reachOf(other)[q] {
					implied = true
					break
				}
			}
			if !implied {
				fmt.Fprintf(&b, "  %s --> %s\n", id(p), id(q))
			}
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// checkArchitecture returns the page with its graph as the code has it,
// and what is wrong with the page as given.
func checkArchitecture(text string, imports map[string][]string) (string, []string) {
	var problems []string
	start, end := strings.Index(text, graphStart+"\n"), strings.Index(text, graphEnd)
	if start < 0 || end < start {
		return text, []string{"no package graph between " + graphStart + " and " + graphEnd}
	}
	want := packageGraph(imports)
	if got := text[start+len(graphStart)+1 : end]; got != want {
		problems = append(problems, "the package graph is not the code's (regenerate with go test ./docs -update)")
	}
	fixed := text[:start+len(graphStart)+1] + want + text[end:]
	// A paragraph for each package: its path, in code, in the prose.
	prose := text[:start] + text[end:]
	for p := range imports {
		if name := strings.TrimPrefix(p, "spawnbench/"); p != "spawnbench" && !strings.Contains(prose, "`"+name+"`") {
			problems = append(problems, fmt.Sprintf("package %s has no paragraph (its path, `%s`, is not in the prose)", p, name))
		}
	}
	sort.Strings(problems)
	return fixed, problems
}

// TestArchitectureGraphIsTheCode: docs/architecture.md draws the package
// graph that go list gives today and speaks of every package.
func TestArchitectureGraphIsTheCode(t *testing.T) {
	root := ".."
	imports, err := modulePackages(root)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(root, "docs", "architecture.md")
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	fixed, problems := checkArchitecture(string(text), imports)
	if *update && fixed != string(text) {
		if err := os.WriteFile(page, []byte(fixed), 0o644); err != nil {
			t.Fatal(err)
		}
		_, problems = checkArchitecture(fixed, imports)
	}
	for _, p := range problems {
		t.Errorf("docs/architecture.md: %s", p)
	}
	// The check sees a change: an import the page does not draw, and a
	// package it does not name.
	changed := map[string][]string{}
	for p, deps := range imports {
		changed[p] = deps
	}
	changed["spawnbench/engine/textfmt"] = append(changed["spawnbench/engine/textfmt"], "spawnbench/engine/new")
	changed["spawnbench/engine/new"] = nil
	if _, problems := checkArchitecture(fixed, changed); len(problems) != 2 {
		t.Errorf("a new package imported by engine/textfmt gave %q; want the stale graph and the missing paragraph", problems)
	}
	if !strings.Contains(fixed, "flowchart") {
		t.Error("docs/architecture.md draws no graph")
	}
}
