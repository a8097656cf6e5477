package docs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/cost"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// The tests here hold the pages to what the code and the committed sets
// say, where a newcomer would read the one and find the other.

// section is the text of page's section under heading (a "## " line),
// up to the next "## " heading.
func section(t *testing.T, page, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", page, heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	return rest
}

// TestSpecsPageListsEveryTopLevelField: docs/specs.md's table of
// top-level fields has a row for every field of the schema's #Spec.
func TestSpecsPageListsEveryTopLevelField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "engine", "spec", "schema", "spec.cue"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(b), "\n#Spec: {\n")
	body, _, _ = strings.Cut(body, "\n}\n")
	fields := regexp.MustCompile(`(?m)^\t([a-z][a-z_]*)[?!]?:`).FindAllStringSubmatch(body, -1)
	if len(fields) < 5 {
		t.Fatalf("found %d top-level fields in the schema's #Spec: %v", len(fields), fields)
	}
	table := section(t, "docs/specs.md", "Top level")
	for _, f := range fields {
		if !strings.Contains(table, "| `"+f[1]+"` |") {
			t.Errorf("docs/specs.md's top-level table has no row for the schema's field %q", f[1])
		}
	}
}

// quickLook is a `spawnbench run` command line that picks environments
// and a process count.
var quickLook = regexp.MustCompile(`spawnbench run [^\n]*--env [^\n]*--processes (\d+)`)

// TestQuickLooksMeasureTheBaselineJudged: every quick look the pages
// show (run --env … --processes k) measures the baseline, without which
// no ratio comes out, and gives a cell enough processes to be judged.
func TestQuickLooksMeasureTheBaselineJudged(t *testing.T) {
	found := 0
	for _, page := range append(pages(t, ".."), "docs/cli.md") {
		b, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quickLook.FindAllStringSubmatch(string(b), -1) {
			found++
			k, _ := strconv.Atoi(m[1])
			if !strings.Contains(m[0], "--env "+report.DefaultBaseline+" ") || k < stats.MinIntervalProcesses {
				t.Errorf("%s: %q measures no %s or fewer than %d processes a cell: it shows no ratio or judges no cell",
					page, m[0], report.DefaultBaseline, stats.MinIntervalProcesses)
			}
		}
	}
	if found == 0 {
		t.Error("no page shows a quick look (run --env … --processes k)")
	}
}

// TestSetsBuiltWithoutVCSSaySo: a committed set whose provenance records
// no VCS revision is said to be so where results/README.md describes it,
// and docs/installing.md, which says the provenance records the
// revision, names it.
func TestSetsBuiltWithoutVCSSaySo(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "results", "*", results.ProvenanceFile))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no committed sets: %v", err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "results", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	installing, err := os.ReadFile(filepath.Join("..", "docs", "installing.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range dirs {
		name := filepath.Base(filepath.Dir(path))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var prov struct {
			Invocations []struct {
				Version string `json:"spawnbench_version"`
			} `json:"invocations"`
		}
		if err := json.Unmarshal(b, &prov); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		unknown := false
		for _, inv := range prov.Invocations {
			unknown = unknown || strings.HasPrefix(inv.Version, "unknown")
		}
		if !unknown {
			continue
		}
		heading := regexp.MustCompile(`(?m)^## [^\n]*\b` + regexp.QuoteMeta(name) + `\b[^\n]*\n`)
		loc := heading.FindIndex(readme)
		if loc == nil {
			t.Errorf("results/README.md has no section for %s", name)
			continue
		}
		text, _, _ := strings.Cut(string(readme[loc[1]:]), "\n## ")
		if !strings.Contains(text, "without VCS") {
			t.Errorf("results/%s's provenance records no VCS revision, and results/README.md's section on it does not say it was built without VCS stamping", name)
		}
		if !strings.Contains(string(installing), "`"+name+"`") {
			t.Errorf("docs/installing.md says the provenance records the VCS revision, and does not name %s, whose provenance records none", name)
		}
	}
}

// TestManyMachinesSaysWhereShardsLeaveNative: where the main job's
// shards leave a cell without native's cell of the same mode and n (so a
// merge of shards run on different nodes has no ratio for it),
// docs/many-machines.md says what to shard.
func TestManyMachinesSaysWhereShardsLeaveNative(t *testing.T) {
	plan, err := spec.LoadPlan(filepath.Join("..", "specs", "sequential.cue"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const shards = 4
	var lacking []string
	for k := range shards {
		s, err := plan.Shard(k, shards, cost.Reference().Cell)
		if err != nil {
			t.Fatal(err)
		}
		native := map[string]bool{}
		for _, c := range s.Cells {
			if c.Env.Name == report.DefaultBaseline {
				native[fmt.Sprint(c.Mode, c.N)] = true
			}
		}
		for _, c := range s.Cells {
			if !native[fmt.Sprint(c.Mode, c.N)] {
				lacking = append(lacking, fmt.Sprintf("%s/%s/%d in shard %d/%d", c.Env.Name, c.Mode, c.N, k, shards))
			}
		}
	}
	text := section(t, "docs/many-machines.md", "Shards")
	says := strings.Contains(text, "**What to shard.** A ratio is computed within one machine")
	if len(lacking) > 0 && !says {
		t.Errorf("shards of specs/sequential.cue leave cells without native's (%s, …), and docs/many-machines.md does not say what to shard", lacking[0])
	}
	if len(lacking) == 0 && says {
		t.Error("every shard of specs/sequential.cue now holds native's cells: docs/many-machines.md's \"What to shard\" no longer holds")
	}
}
