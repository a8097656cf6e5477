package main

import (
	"os"
	"path/filepath"
	"regexp"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
)

// TestErrorsANewcomerCanActOn: each mistake a newcomer makes exits 2
// with a message that names the value given and the fix: a value of the
// wrong type in a spec, a misspelt field, kind, environment, command or
// flag (the nearest names), an -o no format has (the formats that are).
func TestErrorsANewcomerCanActOn(t *testing.T) {
	dir := t.TempDir()
	spec := func(name, body string) string {
		p := filepath.Join(dir, name+".cue")
		if err := os.WriteFile(p, []byte(`environments: [{name: "native", kind: "native"}]`+"\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sequential := filepath.Join(repoRoot(t), "specs", "sequential.cue")
	reference := filepath.Join(repoRoot(t), "results", "reference")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"plan", spec("fraction", "n: [1]\nsamples: {min: 10, processes: 2.5}\n")},
			[]string{"fraction.cue:3:", "samples.processes: 2.5 is not an integer; give a whole number, e.g. processes: 3"}},
		{[]string{"plan", spec("number", "n: [1]\nsamples: {min: 10, pause: 10}\n")},
			[]string{"number.cue:3:", `samples.pause: 10 is a number; give a duration string with its unit, e.g. pause: "10ms" or "10s"`}},
		{[]string{"plan", spec("word", "n: [1]\nsamples: {min: 10, pause: \"ten\"}\n")},
			[]string{"word.cue:3:", `samples.pause: "ten" is not a duration; give a number and a unit (ns, us, ms, s, m, h), e.g. pause: "10ms"`}},
		{[]string{"plan", spec("field", "n: [1]\nsampels: {min: 10}\n")},
			[]string{"field.cue:3:", "sampels: field not allowed; did you mean samples?"}},
		{[]string{"plan", spec("inner", "n: [1]\nsamples: {min: 10, proceses: 3}\n")},
			[]string{"inner.cue:3:", "samples.proceses: field not allowed; did you mean processes?"}},
		{[]string{"run", filepath.Join(writeKind(t, dir, "wasmtim-cli"))},
			[]string{`unknown kind "wasmtim-cli"; did you mean "wasmtime-cli"? known kinds:`}},
		{[]string{"plan", sequential, "--env", "wasmtime-56"},
			[]string{"--env wasmtime-56:", `did you mean "wasmtime-46" or "wasmtime-36"?`}},
		{[]string{"plan", sequential, "--env", "wasmtime"},
			[]string{"--env wasmtime:", "did you mean 'wasmtime*'?"}},
		{[]string{"reprot", reference},
			[]string{"unknown command \"reprot\"; did you mean `spawnbench report`?"}},
		{[]string{"run", sequential, "--proceses", "2"},
			[]string{"run: unknown flag: --proceses; did you mean --processes?"}},
		{[]string{"plan", sequential, "--processes", "2"},
			[]string{"plan: unknown flag: --processes; --processes is a flag of run, not of plan"}},
		{[]string{"report", reference, "-o", filepath.Join(dir, "cells.xlsx")},
			[]string{"report -o " + filepath.Join(dir, "cells.xlsx") + ": report writes no .xlsx file; end the name in .md, .markdown, .txt, .csv, .json or .parquet, or give the format with --format (md, csv, json, benchfmt or parquet)"}},
		{[]string{"compare", reference, reference, "-o", filepath.Join(dir, "changes.parquet")},
			[]string{"compare writes no .parquet file", "(md, csv or json)"}},
	} {
		wantRefused(t, c.args, c.want...)
	}
	if _, err := os.Stat(filepath.Join(dir, "cells.xlsx")); err == nil {
		t.Error("report -o cells.xlsx wrote the file it refused")
	}
}

// writeKind writes a spec of one environment of kind.
func writeKind(t *testing.T, dir, kind string) string {
	t.Helper()
	p := filepath.Join(dir, "kind.cue")
	if err := os.WriteFile(p, []byte(`environments: [{name: "e", kind: "`+kind+`"}]`+"\nn: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoFixSuggestedIsRefused: where report or run --resume finds no set
// in a directory, the command it suggests runs; a directory holding a
// user's files gets a new directory, not one run refuses.
func TestNoFixSuggestedIsRefused(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 1, processes: 1}
`)
	suggested := regexp.MustCompile("`spawnbench run SPEC.cue -o ([^`]+)`")
	mine := filepath.Join(dir, "mine")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, into string }{{mine, filepath.Join(mine, "results")}, {empty, empty}} {
		_, stderr, code := runCLI(t, "report", c.dir)
		m := suggested.FindStringSubmatch(stderr)
		if code != 2 || m == nil || m[1] != c.into {
			t.Errorf("report %s: exit %d, %q; want 2 and a run into %s", c.dir, code, stderr, c.into)
			continue
		}
		if _, stderr, code := runCLI(t, "run", p, "-o", m[1]); code != 0 {
			t.Errorf("the suggested run -o %s is refused: exit %d, %s", m[1], code, stderr)
		}
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, []string{"run", p, "-o", other, "--resume"}, "already holds other files (notes.txt) but no result set", "choose another -o, e.g. -o "+filepath.Join(other, "results"))
	if entries, _ := os.ReadDir(other); len(entries) != 1 || string(fileBytes(t, filepath.Join(other, "notes.txt"))) != "mine\n" {
		t.Errorf("a refused run changed the user's directory: %v", entries)
	}
}

// TestMergeNamesOccasions: two runs of the same cells are refused by a
// plain merge with the flag that merges them, in a short message.
func TestMergeNamesOccasions(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1, 2, 3, 4, 5]
samples: {min: 1, processes: 1}
`)
	mon, wed := filepath.Join(dir, "mon"), filepath.Join(dir, "wed")
	mustRun(t, "run", p, "-o", mon)
	mustRun(t, "run", p, "-o", wed)
	_, stderr, code := runCLI(t, "merge", "-o", filepath.Join(dir, "week"), mon, wed)
	want := mon + " and " + wed + " both measured native/sequential/1, native/sequential/2, native/sequential/3 and 2 more cells on machine "
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "merge them with --occasions") || strings.Contains(stderr, "native/sequential/4") {
		t.Errorf("merge of two runs of the same cells: exit %d, %q; want 2, %q and --occasions", code, stderr, want)
	}
	mustRun(t, "merge", "--occasions", "-o", filepath.Join(dir, "week"), mon, wed)
}
