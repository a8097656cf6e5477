package spec_test

import (
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// TestGoAndCUEAgreeOnBothAxesAndThePairs: a payload or host registered in
// Go has a CUE definition and the reverse; Go runs exactly the pairs CUE
// declares; each kind's default settings make an environment of its pair.
func TestGoAndCUEAgreeOnBothAxesAndThePairs(t *testing.T) {
	sc, err := spec.LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, axis := range []struct {
		name    string
		goNames []string
		cue     []string
	}{{"payload", env.Payloads(), sc.PayloadNames()}, {"host", env.Hosts(), sc.HostNames()}} {
		if !slices.Equal(axis.goNames, axis.cue) {
			t.Errorf("%ss registered in Go (engine/env) %v, defined in CUE (engine/spec/schema) %v", axis.name, axis.goNames, axis.cue)
		}
	}
	pairs := 0
	for _, p := range sc.PayloadNames() {
		for _, h := range sc.HostNames() {
			_, inCUE := sc.PairKind(p, h)
			if inCUE != env.Runs(p, h) {
				t.Errorf("pair %s on %s: CUE's #Pairs says %v, Go's forms say %v", p, h, inCUE, env.Runs(p, h))
			}
			facts, _ := env.Facts(h)
			why, refused := sc.Refusal(p, h)
			if refused != slices.Contains(facts.Refuses, p) || (refused && (inCUE || why == "")) {
				t.Errorf("pair %s on %s: CUE's #Refused says %v (%q), Go's HostFacts.Refuses %v, #Pairs %v", p, h, refused, why, facts.Refuses, inCUE)
			}
			if inCUE {
				pairs++
			}
		}
	}
	if kinds := sc.KindNames(); len(kinds) != pairs || pairs < 13 {
		t.Errorf("%d pairs, %d kinds (%v): every pair has one short form, and the 13 of the shipped specs exist", pairs, len(kinds), kinds)
	}
	for _, k := range sc.KindNames() {
		es, err := sc.DefaultEnvironment(k)
		if err != nil {
			if k != "command" {
				t.Errorf("kind %s has no default environment: %v", k, err)
			}
			continue
		}
		e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
		if err != nil || e.Name() != k || e.Kind() != k || e.Payload() != es.Payload || e.Host() != es.Host {
			t.Errorf("kind %s: New from its defaults: %v, %v", k, e, err)
			continue
		}
		if f, ok := env.Facts(es.Host); !ok || f.Family == "" || (es.Host != "command" && f.ClockStepNS <= 0) || (es.Host != "command" && es.Host != "os" && f.Install == "") {
			t.Errorf("host %s declares incomplete facts: %+v", es.Host, f)
		}
	}
}

// TestWasmtimeCLIDefaultIsTheFirstVersion: the schema's default CLI is
// the first release of the one list (engine/env/wasmtime-cli.versions).
func TestWasmtimeCLIDefaultIsTheFirstVersion(t *testing.T) {
	sc, err := spec.LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	es, err := sc.DefaultEnvironment("wasmtime-cli")
	if err != nil {
		t.Fatal(err)
	}
	versions := env.WasmtimeCLIVersions()
	if len(versions) < 2 {
		t.Fatalf("versions %v", versions)
	}
	if want := `"wasmtime":"` + env.WasmtimeCLICommand(versions[0]) + `"`; !strings.Contains(string(es.Resolved), want) {
		t.Errorf("default wasmtime-cli %s lacks %s", es.Resolved, want)
	}
	facts, _ := env.Facts("wasmtime-cli")
	for _, v := range versions {
		if !strings.Contains(facts.Install, v) || !strings.Contains(facts.Install, "bin/"+env.WasmtimeCLICommand(v)) {
			t.Errorf("install hint %q does not name %s", facts.Install, v)
		}
	}
}

// TestAnImpossiblePairIsAnErrorAtPlan: a payload on a host that cannot run
// it, and a kind contradicted by its payload, are input errors naming the
// file and line and what would run.
func TestAnImpossiblePairIsAnErrorAtPlan(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{`{name: "x", payload: "emscripten", host: "wasmtime-cli"}`, "bad.cue:2: environment \"x\": an Emscripten build cannot run on wasmtime-cli; hosts that run it: chromium, firefox, node"},
		{`{name: "x", payload: "native", host: "node"}`, "a native build cannot run on node; hosts that run it: os"},
		// A refused pair says why, and what runs the payload instead.
		{`{name: "x", payload: "emscripten", host: "bun"}`, "bad.cue:2: environment \"x\": an Emscripten build cannot run on bun: Emscripten 3.1.6's glue reads process.hrtime"},
		{`{name: "x", payload: "emscripten", host: "deno"}`, "an Emscripten build cannot run on deno: Emscripten 3.1.6's glue takes Deno for Node.js and fails (`__filename is not defined`"},
		{`{name: "x", payload: "emscripten", host: "deno"}`, "; hosts that run it: chromium, firefox, node"},
		{`{name: "x", kind: "manual", payload: "emscripten"}`, `kind "manual" is payload "manual", not "emscripten"`},
		{`{name: "x", payload: "native"}`, "has no kind, nor payload and host"},
		{`{name: "x", payload: "native", host: "nosuchhost"}`, `unknown host "nosuchhost"; known hosts:`},
	} {
		_, err := spec.Parse("bad.cue", []byte("n: [1]\nenvironments: ["+c.env+"]\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.env, err, c.want)
		}
	}
	// Both spellings of a pair resolve alike.
	a, errA := spec.Parse("a.cue", []byte(`n: [1]
environments: [{name: "x", kind: "emscripten-firefox", pthread_pool_size: 16}]
`))
	b, errB := spec.Parse("b.cue", []byte(`n: [1]
environments: [{name: "x", payload: "emscripten", host: "firefox", pthread_pool_size: 16}]
`))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	ea, eb := a.Environments[0], b.Environments[0]
	if ea.Kind != eb.Kind || ea.Payload != eb.Payload || ea.Host != eb.Host || ea.Kind != "emscripten-firefox" {
		t.Errorf("kind form %+v, axes form %+v", ea, eb)
	}
}
