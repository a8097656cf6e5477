package spec

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/inputerr"

	"cuelang.org/go/cue"
)

func TestShippedSpecsReproduceTheStudyMatrix(t *testing.T) {
	for _, name := range []string{"sequential", "parallel"} {
		s, err := Load(filepath.Join("..", "..", "specs", name+".cue"))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Modes; len(got) != 1 || got[0] != name {
			t.Errorf("%s: modes = %v", name, got)
		}
		if s.Samples.Min != 100 || s.Samples.Pause != 10*time.Millisecond || s.Views.Last != 10 || s.Views.MinN != 100 {
			t.Errorf("%s: samples %+v views %+v", name, s.Samples, s.Views)
		}
		plan, err := Expand(s, []string{"native"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]int{1: 100, 10: 10, 100: 10, 1000: 10}
		if len(plan.Cells) != len(want) {
			t.Fatalf("%s: %d cells, want %d", name, len(plan.Cells), len(want))
		}
		for _, c := range plan.Cells {
			if c.Processes != want[c.N] || c.Samples() < 100 {
				t.Errorf("%s n=%d: %d processes (%d samples), want %d", name, c.N, c.Processes, c.Samples(), want[c.N])
			}
		}
		byName := map[string]EnvironmentSpec{}
		for _, e := range s.Environments {
			byName[e.Name] = e
		}
		for _, k := range []string{"native", "wasi-threads", "wasi-threads-pooled", "emscripten", "manual"} {
			if _, ok := byName[k]; !ok {
				t.Errorf("%s: no %s environment", name, k)
			}
		}
		// Fidelity: the default wasi-threads is a fresh OS thread per
		// spawn, as Wasmtime; the pool is the named variant.
		for env, want := range map[string]string{"wasi-threads": "fresh", "wasi-threads-pooled": "reuse"} {
			var got struct {
				HostThreads string `json:"host_threads"`
			}
			if err := json.Unmarshal(byName[env].Resolved, &got); err != nil || got.HostThreads != want {
				t.Errorf("%s: %s host_threads = %q (%v), want %q", name, env, got.HostThreads, err, want)
			}
		}
	}
}

// TestShippedSpecsShareOneEnvironmentList: the sequential and parallel
// specs differ in their modes, not in what they measure (but for the
// one-CPU and traced twins of the sequential bottom line).
func TestShippedSpecsShareOneEnvironmentList(t *testing.T) {
	var lists [2]string
	for i, name := range []string{"sequential", "parallel"} {
		s, err := Load(filepath.Join("..", "..", "specs", name+".cue"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range s.Environments {
			if e.Placement != PlaceOneCPU && !e.Traced {
				names = append(names, e.Name+"="+string(e.Resolved))
			}
		}
		lists[i] = strings.Join(names, "\n")
	}
	if lists[0] != lists[1] {
		t.Errorf("environment lists differ:\n%s\n----\n%s", lists[0], lists[1])
	}
}

func TestDefaultsComeFromTheSchema(t *testing.T) {
	s, err := Parse("d.cue", []byte(`environments: [{name: "a", kind: "native"}]
n: [1, 3]`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples.Min != 100 || s.Timeout != 120*time.Second || len(s.Modes) != 1 || s.Name != "d" || s.CPUs != nil {
		t.Errorf("defaults: %+v timeout %s modes %v name %q cpus %#v", s.Samples, s.Timeout, s.Modes, s.Name, s.CPUs)
	}
	if got := string(s.Environments[0].Resolved); !strings.Contains(got, `"cc":"gcc"`) || !strings.Contains(got, `"-O2"`) {
		t.Errorf("native settings = %s", got)
	}
	var resolved struct {
		Samples  struct{ Min int }
		Schedule struct{ Order string }
		Limits   struct{ Timeout string }
	}
	if err := json.Unmarshal(s.Resolved, &resolved); err != nil || resolved.Samples.Min != 100 || resolved.Schedule.Order != "interleave" || resolved.Limits.Timeout != "120s" {
		t.Errorf("resolved spec %s (%v)", s.Resolved, err)
	}
	plan, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := plan.Cells[1]
	if c.N != 3 || c.Processes != 34 || c.Index != 1 || c.Arg != 3 || c.Benchmark != "sequential" || c.Timeout != 120*time.Second || c.CPUs != nil {
		t.Errorf("n=3 cell = %+v, want ceil(100/3) = 34 processes", c)
	}
	if c.Key() != "a/sequential/3" || c.Total() != 34 {
		t.Errorf("key %q total %d", c.Key(), c.Total())
	}
}

func TestVariantInCUEAlone(t *testing.T) {
	s, err := Parse("v.cue", []byte(`environments: [{name: "native-clang", kind: "native", cc: "clang-16", cflags: ["-O2"]}]
n: [1]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Environments[0].Resolved); !strings.Contains(got, `"cc":"clang-16"`) {
		t.Errorf("settings = %s", got)
	}
	var cc string
	if err := s.Environments[0].Settings.LookupPath(cue.ParsePath("cc")).Decode(&cc); err != nil || cc != "clang-16" {
		t.Errorf("Settings cc = %q, %v", cc, err)
	}
}

const nativeEnv = `environments: [{name: "a", kind: "native"}]` + "\n"

// badSpecs are specs that must be refused: exit 2, a message with each
// of want. The CLI test runs every one through `cue vet -c` as well.
var badSpecs = []struct {
	name, src string
	want      []string
}{
	{"malformed", "environments: [{name: \"a\", kind: \"native\"}\nn: [1]\n", []string{"bad.cue:2:", "not valid CUE"}},
	{"empty file", "", []string{"bad.cue is empty", "environments", "n:"}},
	{"comments only", "// nothing yet\n", []string{"bad.cue is empty"}},
	{"unknown field", nativeEnv + "n: [1]\nsampels: {min: 3}\n", []string{"bad.cue:3:", "sampels", "not allowed"}},
	{"unknown env field", "environments: [{name: \"a\", kind: \"native\", cxx: \"g++\"}]\nn: [1]\n", []string{"bad.cue:1:", "environments.0.cxx", "not allowed"}},
	{"unknown wasi-threads field", "environments: [{name: \"a\", kind: \"wasi-threads\", host_thread: \"fresh\"}]\nn: [1]\n", []string{"bad.cue:1:", "host_thread", "not allowed"}},
	{"refused pair", "environments: [{name: \"a\", payload: \"emscripten\", host: \"deno\"}]\nn: [1]\n", []string{"bad.cue:1:", "cannot run on deno: Emscripten 3.1.6's glue", "hosts that run it: chromium, firefox, node"}},
	{"unknown worker API", "environments: [{name: \"a\", kind: \"manual-bun\", workers: \"classic\"}]\nn: [1]\n", []string{"bad.cue:1:", "workers"}},
	{"unknown kind", "environments: [\n{name: \"a\", kind: \"lucet\"}]\nn: [1]\n", []string{"bad.cue:2", `unknown kind "lucet"`, "native", "spawnbench envs"}},
	{"missing kind", "environments: [{name: \"a\"}]\nn: [1]\n", []string{"bad.cue", "kind"}},
	{"n zero", nativeEnv + "n: [1, 0]\n", []string{"bad.cue:2:", "n.1", ">0"}},
	{"n negative", nativeEnv + "n: [-4]\n", []string{"bad.cue:2:", ">0"}},
	{"n above int32", nativeEnv + "n: [2147483648]\n", []string{"bad.cue:2:", "<=1000000"}},
	{"n above the bound", nativeEnv + "n: [1000001]\n", []string{"bad.cue:2:", "<=1000000"}},
	{"n duplicate", nativeEnv + "n: [1, 10, 1]\n", []string{"bad.cue:2:", "n:", "equal value (1)"}},
	{"n empty", nativeEnv + "n: []\n", []string{"bad.cue:2:", "n: is empty"}},
	{"n missing", nativeEnv, []string{"bad.cue", "n: field is required"}},
	{"modes empty", nativeEnv + "n: [1]\nmodes: []\n", []string{"bad.cue:3:", "modes: is empty"}},
	{"modes duplicate", nativeEnv + "n: [1]\nmodes: [\"sequential\", \"sequential\"]\n", []string{"bad.cue:3:", "modes", "equal value"}},
	{"mode unknown", nativeEnv + "n: [1]\nmodes: [\"serial\"]\n", []string{"bad.cue:3:", "modes.0"}},
	{"min zero", nativeEnv + "n: [1]\nsamples: min: 0\n", []string{"bad.cue:3:", "samples.min", ">0"}},
	{"no environments", "environments: []\nn: [1]\n", []string{"bad.cue", "environments"}},
	{"environments missing", "n: [1]\n", []string{"bad.cue", "environments: field is required"}},
	{"bad duration", nativeEnv + "n: [1]\nlimits: timeout: \"soon\"\n", []string{"bad.cue:3:", "limits.timeout"}},
	{"zero timeout", nativeEnv + "n: [1]\nlimits: timeout: \"0s\"\n", []string{"bad.cue:3:", "limits.timeout"}},
	{"negative pause", nativeEnv + "n: [1]\nsamples: pause: \"-1ms\"\n", []string{"bad.cue:3:", "samples.pause"}},
	{"cpu duplicate", nativeEnv + "n: [1]\npinning: cpus: [0, 0]\n", []string{"bad.cue:3:", "pinning.cpus", "equal value (0)"}},
	{"duplicate name", "environments: [{name: \"a\", kind: \"native\"}, {name: \"a\", kind: \"native\"}]\nn: [1]\n", []string{"bad.cue:1", `"a" is used twice`}},
	{"wrong type", "environments: [{name: \"a\", kind: \"native\", cc: 3}]\nn: [1]\n", []string{"bad.cue:1:", "environments.0.cc"}},
	{"unsafe spec name", nativeEnv + "n: [1]\nname: \"../../x\"\n", []string{"bad.cue:3:", "name"}},
	{"unsafe env name", "environments: [{name: \"a/b\", kind: \"native\"}]\nn: [1]\n", []string{"bad.cue:1:", "environments.0.name"}},
	{"schedule order unknown", nativeEnv + "n: [1]\nschedule: order: \"random\"\n", []string{"bad.cue:3:", "schedule.order", `"random" is not allowed here; give one of "blocked", "interleave"`}},
	{"schedule seed negative", nativeEnv + "n: [1]\nschedule: seed: -1\n", []string{"bad.cue:3:", "schedule.seed", ">=0"}},
	{"wasi-threads max_memory not pages", "environments: [{name: \"w\", kind: \"wasi-threads\",\n max_memory: 100000}]\nn: [1]\n", []string{"bad.cue:2:", "environments.0.max_memory", "MultipleOf(65536)"}},
	{"wasi-threads stack not 16", "environments: [{name: \"w\", kind: \"wasi-threads\", stack_size: 65537}]\nn: [1]\n", []string{"bad.cue:1:", "stack_size", "MultipleOf(16)"}},
	{"wasi-threads prestart without reuse", "environments: [{name: \"w\", kind: \"wasi-threads\", prestart_threads: 4}]\nn: [1]\n", []string{"bad.cue:1:", "prestart_threads", `host_threads: "reuse"`}},
	{"wasi-threads spin without reuse", "environments: [{name: \"w\", kind: \"wasi-threads\", host_threads: \"fresh\", idle_spin: \"50us\"}]\nn: [1]\n", []string{"bad.cue:1:", "idle_spin", `host_threads: "reuse"`}},
	{"emscripten initial_memory not pages", "environments: [{name: \"e\", kind: \"emscripten\", initial_memory: 1000000}]\nn: [1]\n", []string{"bad.cue:1:", "initial_memory", "MultipleOf(65536)"}},
	{"emscripten optimization unknown", "environments: [{name: \"e\", kind: \"emscripten-chromium\", optimization: \"4\"}]\nn: [1]\n", []string{"bad.cue:1:", "optimization"}},
	{"views.last beyond int64", nativeEnv + "n: [1]\nviews: last: 99999999999999999999\n", []string{"bad.cue:3:", "views.last"}},
	{"stack beyond its bound", "environments: [{name: \"w\", kind: \"wasi-threads\", stack_size: 99999999999999999984}]\nn: [1]\n", []string{"bad.cue:1:", "stack_size"}},
	{"calibration without sleeps", nativeEnv + "n: [1]\ncalibration: sleep_us: []\n", []string{"bad.cue:3:", "calibration.sleep_us: is empty"}},
	{"wasmtime-cli max_memory not pages", "environments: [{name: \"w\", kind: \"wasmtime-cli\", max_memory: 100000}]\nn: [1]\n", []string{"bad.cue:1:", "max_memory", "MultipleOf(65536)"}},
	{"wasi-threads-chromium stack not 16", "environments: [{name: \"w\", kind: \"wasi-threads-chromium\", stack_size: 65544}]\nn: [1]\n", []string{"bad.cue:1:", "stack_size", "MultipleOf(16)"}},
	{"js host pool without reuse", "environments: [{name: \"w\", kind: \"wasi-threads-node\", pool_size: 4}]\nn: [1]\n", []string{"bad.cue:1:", "pool_size", "reuse_worker: true"}},
	{"js host pool beyond its bound", "environments: [{name: \"w\", kind: \"wasi-threads-firefox\", reuse_worker: true, pool_size: 4097}]\nn: [1]\n", []string{"bad.cue:1:", "pool_size", "<=4096"}},
	{"unknown firefox field", "environments: [{name: \"f\", kind: \"manual-firefox\", chromium: \"chromium\"}]\nn: [1]\n", []string{"bad.cue:1:", "chromium", "not allowed"}},
	{"command without run", "environments: [{name: \"c\", kind: \"command\"}]\nn: [1]\n", []string{"bad.cue", "run: field is required"}},
	// A value of the wrong type: the value given, what it is, what to
	// give, with an example made from it.
	{"fractional processes", nativeEnv + "n: [1]\nsamples: {min: 10, processes: 2.5}\n", []string{"bad.cue:3:", "samples.processes: 2.5 is not an integer; give a whole number, e.g. processes: 3"}},
	{"number for a duration", nativeEnv + "n: [1]\nsamples: {min: 10, pause: 10}\n", []string{"bad.cue:3:", `samples.pause: 10 is a number; give a duration string with its unit, e.g. pause: "10ms" or "10s"`}},
	{"word for a duration", nativeEnv + "n: [1]\nsamples: {min: 10, pause: \"ten\"}\n", []string{"bad.cue:3:", `samples.pause: "ten" is not a duration; give a number and a unit (ns, us, ms, s, m, h), e.g. pause: "10ms"`}},
	{"number for a positive duration", nativeEnv + "n: [1]\nlimits: timeout: 5\n", []string{"bad.cue:3:", `limits.timeout: 5 is a number; give a duration string with its unit, e.g. timeout: "5ms" or "5s"`}},
	{"quoted number", nativeEnv + "n: [1]\nsamples: min: \"10\"\n", []string{"bad.cue:3:", `samples.min: "10" is a string; give a whole number, e.g. min: 10`}},
	{"fractional n", nativeEnv + "n: [1.5]\n", []string{"bad.cue:2:", "n.0: 1.5 is not an integer; give a whole number, e.g. n: [2]"}},
	{"n not a list", nativeEnv + "n: 10\n", []string{"bad.cue:2:", "n: 10 is a number; give a list, e.g. n: [10]"}},
	{"number for a bool", nativeEnv + "n: [1]\nsamples: adaptive: 1\n", []string{"bad.cue:3:", "samples.adaptive: 1 is a number; give true or false, e.g. adaptive: true"}},
	{"fractional env processes", "environments: [{name: \"a\", kind: \"native\", processes: 2.5}]\nn: [1]\n", []string{"bad.cue:1:", "environments.0.processes: 2.5 is not an integer; give a whole number, e.g. processes: 3"}},
	// A misspelt name: the nearest the schema knows.
	{"misspelt field", nativeEnv + "n: [1]\nsampels: {min: 3}\n", []string{"bad.cue:3:", "sampels: field not allowed; did you mean samples?"}},
	{"misspelt sample field", nativeEnv + "n: [1]\nsamples: proceses: 3\n", []string{"bad.cue:3:", "samples.proceses: field not allowed; did you mean processes?"}},
	{"misspelt env field", "environments: [{name: \"a\", kind: \"native\", procesess: 3}]\nn: [1]\n", []string{"bad.cue:1:", "environments.0.procesess: field not allowed; did you mean processes?"}},
	{"field one level too high", nativeEnv + "n: [1]\ntimeout: \"5s\"\n", []string{"bad.cue:3:", "timeout: field not allowed; did you mean limits.timeout?"}},
	{"unknown field, nothing near", nativeEnv + "n: [1]\nsamples: colour: 3\n", []string{"bad.cue:3:", "samples.colour: field not allowed; the fields here are adaptive, budget, max_processes, min, pause, precision, processes, round, warmup"}},
	{"misspelt kind", "environments: [{name: \"a\", kind: \"wasmtim-cli\"}]\nn: [1]\n", []string{"bad.cue:1", `unknown kind "wasmtim-cli"; did you mean "wasmtime-cli"? known kinds: command,`}},
	{"misspelt host", "environments: [{name: \"a\", payload: \"wasi-libc\", host: \"chromum\"}]\nn: [1]\n", []string{"bad.cue:1", `unknown host "chromum"; did you mean "chromium"? known hosts:`}},
	{"misspelt payload", "environments: [{name: \"a\", payload: \"wasi-lib\", host: \"node\"}]\nn: [1]\n", []string{"bad.cue:1", `unknown payload "wasi-lib"; did you mean "wasi-libc"? known payloads:`}},
	{"command env not KEY=value", "environments: [{name: \"c\", kind: \"command\", run: [\"x\"], env: [\"oops\"]}]\nn: [1]\n", []string{"bad.cue:1:", "env.0"}},
}

// TestBadInput checks that each bad spec is an InputError that names the
// file, the line where one applies, the field, and what is wrong.
func TestBadInput(t *testing.T) {
	for _, c := range badSpecs {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.cue", []byte(c.src))
			var in *inputerr.Error
			if !errors.As(err, &in) {
				t.Fatalf("err = %v (%T), want *inputerr.Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%s", w, err)
				}
			}
			if strings.Contains(err.Error(), schemaRoot) {
				t.Errorf("error names the embedded schema's virtual path:\n%s", err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.cue"))
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "nope.cue: no such file") {
		t.Fatalf("err = %v", err)
	}
}

func TestEnvSelection(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.cue")
	os.WriteFile(p, []byte(`environments: [{name: "a", kind: "native"}, {name: "b", kind: "native"}]
n: [1]`), 0o644)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Expand(s, []string{"c"})
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "--env c") || !strings.Contains(err.Error(), "a, b") {
		t.Fatalf("err = %v", err)
	}
	// A near name, or the start of names, is suggested; a pattern is not
	// second-guessed.
	os.WriteFile(p, []byte(`environments: [{name: "native", kind: "native"}, {name: "wasmtime-46", kind: "wasmtime-cli"}, {name: "wasmtime-36", kind: "wasmtime-cli"}]
n: [1]`), 0o644)
	many, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for only, want := range map[string]string{
		"wasmtime-56": `no environment of that name or matching that pattern; did you mean "wasmtime-46" or "wasmtime-36"? it has: native, wasmtime-46, wasmtime-36`,
		"wasm":        `did you mean 'wasm*'? it has:`,
		"x*":          "matching that pattern; it has:",
	} {
		if _, err := Expand(many, []string{only}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--env %s: %v; want %q", only, err, want)
		}
	}
	plan, err := Expand(s, []string{"b"})
	if err != nil || len(plan.Cells) != 1 || plan.Cells[0].Env.Name != "b" {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
}

func TestPinning(t *testing.T) {
	cases := []struct {
		src  string
		want []int
		text string
	}{
		{"pinning: cpus: [0]", []int{0}, "0"},
		{"pinning: cpus: []", nil, "none"},
		{"", nil, "none"},
	}
	for _, c := range cases {
		s, err := Parse("p.cue", []byte(nativeEnv+"n: [1]\n"+c.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.CPUs) != len(c.want) || (c.want == nil) != (s.CPUs == nil) || Pinning(s.CPUs) != c.text {
			t.Errorf("%q: cpus = %#v (%s), want %#v (%s)", c.src, s.CPUs, Pinning(s.CPUs), c.want, c.text)
		}
	}
	_, err := Parse("p.cue", []byte(nativeEnv+"n: [1]\npinning: cpus: [1023]"))
	if err == nil || !strings.Contains(err.Error(), "p.cue:3: pinning.cpus: CPU 1023 is not available") {
		t.Errorf("missing CPU: %v", err)
	}
}

// TestNestedSettingsKeepTheirDefaults: a spec that sets part of a nested
// struct keeps the defaults of the rest.
func TestNestedSettingsKeepTheirDefaults(t *testing.T) {
	s, err := Parse("n.cue", []byte(nativeEnv+`n: [1]
calibration: tolerance: relative: 0.25`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Calibration.RelativeTolerance != 0.25 || s.Calibration.AbsoluteTolerance != 5*time.Millisecond || s.Calibration.Repeats != 3 {
		t.Errorf("calibration = %+v", s.Calibration)
	}
}

func TestSafeName(t *testing.T) {
	cases := map[string]string{
		"sequential": "sequential",
		"my spec":    "my-spec",
		"../../x":    "x",
		"..":         "spec",
		"a/b":        "a-b",
		"":           "spec",
	}
	for name, want := range cases {
		if got := (&Spec{Name: name}).SafeName(); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", name, got, want)
		}
	}
	// A name taken from an unusual file name is made safe too.
	s, err := Parse(filepath.Join(t.TempDir(), "..odd name!.cue"), []byte(nativeEnv+"n: [1]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.SafeName(); got != "odd-name-" {
		t.Errorf("SafeName = %q", got)
	}
}

func TestSchemaTextIsOneFileThatConstrainsTheTopLevel(t *testing.T) {
	text, err := SchemaText()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "package ") || strings.Count(text, "import (") != 1 || !strings.Contains(text, "\n#Spec\n") {
		t.Errorf("schema text is not one self-contained file:\n%s", text)
	}
	sc := mustSchema(t)
	for _, axis := range []struct {
		def   string
		names []string
	}{{"#Payloads", sc.PayloadNames()}, {"#Hosts", sc.HostNames()}} {
		if len(axis.names) < 4 {
			t.Errorf("%s has only %v", axis.def, axis.names)
		}
		for _, name := range axis.names {
			if !strings.Contains(text, axis.def+": "+name+":") && !strings.Contains(text, axis.def+`: "`+name+`":`) {
				t.Errorf("schema text lacks %s %s", axis.def, name)
			}
		}
	}
	for _, kind := range sc.KindNames() {
		if !regexp.MustCompile(`#kind: +"` + regexp.QuoteMeta(kind) + `"`).MatchString(text) {
			t.Errorf("schema text lacks the pair of kind %s", kind)
		}
	}
}

func mustSchema(t *testing.T) *Schema {
	t.Helper()
	sc, err := LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestEveryKindNamesItself: #Kinds.x has kind "x", and every kind but
// command (whose run is the user's) has a default environment.
func TestEveryKindNamesItself(t *testing.T) {
	sc := mustSchema(t)
	if len(sc.KindNames()) < 7 {
		t.Fatalf("kinds = %v", sc.KindNames())
	}
	for _, k := range sc.KindNames() {
		es, err := sc.DefaultEnvironment(k)
		if k == "command" {
			if err == nil {
				t.Errorf("command has a default environment: %s", es.Resolved)
			}
			continue
		}
		if err != nil || es.Kind != k || !strings.Contains(string(es.Resolved), `"kind":"`+k+`"`) {
			t.Errorf("%s: %+v, %v", k, es, err)
		}
	}
}

// TestAnyFileName: the loader's rules for file names (no *_test.cue, no
// leading _ or .) do not apply to a spec, and messages name the spec as
// given.
func TestAnyFileName(t *testing.T) {
	for _, name := range []string{"web_test.cue", "_x.cue", ".x.cue", "spec", "specs/calibrate.cue (built in)"} {
		if _, err := Parse(name, []byte(nativeEnv+"n: [1]\n")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		_, err := Parse(name, []byte(nativeEnv+"n: [0]\n"))
		if err == nil || !strings.Contains(err.Error(), name+":2:") {
			t.Errorf("%s: error %v does not name the spec", name, err)
		}
	}
}

// TestHashCoversImports: the shipped specs' hash changes when the shared
// package they import does, and the imported text is kept.
func TestHashCoversImports(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "specs"))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sequential.cue")
	before, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Imports) != 1 || before.Imports[0].Name != "spawnbench.example/specs/shared/environments.cue" {
		t.Fatalf("imports = %+v", before.Imports)
	}
	shared := filepath.Join(dir, "shared", "environments.cue")
	text, _ := os.ReadFile(shared)
	os.WriteFile(shared, append(text, "\n// changed\n"...), 0o644)
	after, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Hash == before.Hash {
		t.Error("the hash did not change with the imported package")
	}
}

// TestErrorsSayWhatIsWrongAndNothingElse: issue 20, item 13. A conflict
// of list lengths has a message (it had none), an element's error comes
// without a false "is empty" line for its list, and an import error names
// the spec, not the loader's name for it.
func TestErrorsSayWhatIsWrongAndNothingElse(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
		notWant   []string
	}{
		{"list lengths", nativeEnv + "n: [1, 2] & [1]\n", []string{"bad.cue:2:", "n:", "different lengths (1 and 2)"}, nil},
		{"cpu negative", nativeEnv + "n: [1]\npinning: cpus: [-1]\n", []string{"bad.cue:3:", "pinning.cpus.0", ">=0"}, []string{"is empty"}},
		{"env name bad", "environments: [{name: \"c\", kind: \"command\", run: [\"x\"], env: [\"1BAD=x\"]}]\nn: [1]\n", []string{"bad.cue:1:", "env.0", "1BAD=x"}, []string{"is empty"}},
		{"import unavailable", "import \"example.com/none\"\n" + nativeEnv + "n: [1]\n", []string{"bad.cue:1:", "import"}, []string{"spawnbench-spec-overlay"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(filepath.Join(t.TempDir(), "bad.cue"), []byte(c.src))
			var in *inputerr.Error
			if !errors.As(err, &in) {
				t.Fatalf("err = %v (%T), want *inputerr.Error", err, err)
			}
			lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
			if len(lines) < 2 || strings.TrimSpace(lines[1]) == "" {
				t.Errorf("no reason given:\n%s", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%s", w, err)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error says %q:\n%s", w, err)
				}
			}
		})
	}
}
