// Package env holds spawnbench's environments: a payload (what is built:
// native executables, the wasi-threads .wasm, the Emscripten build, the
// raw-worker page) run by a host (what runs it: the OS, the embedded
// Wasmtime, a Wasmtime CLI, Node.js, Bun, Deno, Chromium, Firefox). One small type
// per payload and one per host, each in its own file.
//
// This package is opinionated: a payload knows how to check its tools and
// build the C benchmarks (or its own JS) once, whatever host runs it; a
// host knows its tools, its facts (family, clock step, install hint) and
// how to launch a payload in a fresh process or page (a browser host may
// keep its browser warm between pages: Close ends it). A host runs a
// payload through one of five forms (an executable, a .wasm module, a
// component, a script, a page) that the payload offers; what a payload needs beside
// its artefact on some hosts (the JavaScript wasi-threads host under
// Node.js and the browsers) it stages next to the build when the host
// launches. Which pairs exist, and every default and rule, is the CUE
// schema's (engine/spec/schema); the test that Go and CUE agree covers
// both axes and the pairs. The package knows nothing of plans, samples or
// files; the runner (engine/run) drives it and the output protocol (see
// c/sb.h) is its only contract with the benchmark.
//
// A payload or host registers itself from an init function, naming its
// settings struct as the type parameter: its settings are the
// environment's CUE value, validated and with defaults filled, decoded
// with cue.Value.Decode (each type takes the fields it names), so no type
// checks anything itself.
package env

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"spawnbench/engine/proc"

	"cuelang.org/go/cue"
)

// Benchmark names one of the programs in c/ (or its manual/ equivalent).
type Benchmark string

const (
	Sequential  Benchmark = "sequential"
	Parallel    Benchmark = "parallel"
	Calibration Benchmark = "calibration"
)

// Benchmarks lists every benchmark a payload builds.
var Benchmarks = []Benchmark{Sequential, Parallel, Calibration}

// Toolchain says whether an environment can run on this machine.
type Toolchain struct {
	Present bool
	// Version is the tools' own version words, e.g. "gcc (Debian 12.2.0) 12.2.0".
	Version string
	// Install is the command that installs what is missing.
	Install string
	// Problem says what is missing when Present is false.
	Problem string
	// Unfit is true when the tools are there but cannot run the
	// environment (Problem says why): a Wasmtime CLI that refuses
	// wasi-threads. Installing again does not help; another version does.
	Unfit bool
}

// Sources is the tree of benchmark sources (c/ and manual/), embedded in the
// binary so spawnbench works from any directory.
type Sources interface {
	// WriteTo copies the sources into dir, keeping their relative paths
	// ("c/sequential.c", "manual/worker.js", ...).
	WriteTo(dir string) error
	// Hash is a content hash of every source file.
	Hash() string
}

// Repetition is one fresh process (or page) of one benchmark.
type Repetition struct {
	Benchmark Benchmark
	// Arg is the benchmark's single argument: n for sequential and parallel,
	// microseconds for calibration.
	Arg int
	// BuildDir is the directory the host runs the payload from: the
	// payload's build, or what Stage made of it.
	BuildDir string
	// CPUs is the affinity for every process this repetition starts; empty
	// means no pinning.
	CPUs []int
	// Stdout, when set, receives the benchmark's standard output as it
	// streams (an engine/protocol Collector, say), and the Outcome's
	// Stdout is nil.
	Stdout io.Writer
	// Traced says the process is to be traced (a traced twin's): a host
	// that times its own phases in a new thread prints them then, as
	// "#phase" directives (c/sb.h), and only then, so that the untraced
	// cells measure what they always did.
	Traced bool
}

// Outcome is what one repetition produced, before any interpretation.
// A repetition that ran but failed still returns its Outcome (and a nil
// error), so samples printed before a crash are kept.
type Outcome = proc.Outcome

// Form is how a host takes a payload.
type Form string

const (
	// FormExecutable: a program the OS runs (native, command).
	FormExecutable Form = "executable"
	// FormModule: a wasi-threads .wasm a WebAssembly runtime runs.
	FormModule Form = "module"
	// FormScript: a script Node.js runs.
	FormScript Form = "script"
	// FormPage: a page a browser opens.
	FormPage Form = "page"
	// FormComponent: a component a component-model runtime runs (the
	// cm-threads payload on a Wasmtime CLI).
	FormComponent Form = "component"
)

// Entry is what a host starts for one repetition: a file of the run
// directory (the executable, module, script or page) and its arguments
// (for a page, spawnbench.argv).
type Entry struct {
	File string
	Args []string
	// LiveWorkers is how many workers the payload keeps alive at once in
	// this repetition, where a page host must have them all running to
	// finish (0: few, or none the host counts): a browser that caps the
	// workers of an origin below it can never finish the repetition.
	LiveWorkers int
}

// Payload is what is built: one artefact per distinct payload and
// settings, whatever host runs it.
type Payload interface {
	// Toolchain checks the tools the build needs.
	Toolchain(ctx context.Context) Toolchain
	// BuildKey is a string that changes whenever Build's output would: the
	// build settings and tool versions, never a host's. The build cache
	// hashes it with the sources.
	BuildKey(ctx context.Context) string
	// Build compiles every benchmark from srcDir (a copy of Sources) into
	// outDir.
	Build(ctx context.Context, srcDir, outDir string) error
	// Entry is how a host of form f, one the payload registered, starts
	// benchmark b with arg.
	Entry(f Form, b Benchmark, arg int) Entry
}

// Adapter is what a payload needs beside its artefact under hosts of some
// form, such as the JavaScript wasi-threads host for the .wasm in Node.js
// and the browsers.
type Adapter interface {
	Toolchain(ctx context.Context) Toolchain
	// Stage returns the directory to run from: the build's files and the
	// adapter's, made once per build and adapter.
	Stage(ctx context.Context, buildDir string) (string, error)
}

// Adapted is a payload that needs an Adapter under hosts of some forms.
type Adapted interface {
	// Adapter for hosts of form f; nil when none is needed.
	Adapter(f Form) Adapter
}

// Host is what runs a payload.
type Host interface {
	// Toolchain checks the host's own tools.
	Toolchain(ctx context.Context) Toolchain
	// Run performs one repetition of entry from r.BuildDir. An error means
	// the repetition could not even start; anything the benchmark did is
	// reported in the Outcome.
	Run(ctx context.Context, entry Entry, r Repetition) (Outcome, error)
}

// HostFacts are what a host declares about itself, so that nothing is
// guessed from environment names.
type HostFacts struct {
	// Family groups the environments that share a host, for reports
	// (a payload may name its own: PayloadFacts).
	Family string
	// ClockStepNS is one step of the benchmark clock the host gives the
	// payload: a spawn may lie this far outside 0 <= spawn_ns <=
	// joined_ns and still count as one clock.
	ClockStepNS int64
	// Install is the command that installs the host.
	Install string
	// Refuses lists payloads that offer the host's form but that it cannot
	// run (Emscripten 3.1.6's Node.js script under Bun, say); the schema's
	// #Refused says why, and plan says so.
	Refuses []string
}

// PayloadFacts are what a payload declares about itself.
type PayloadFacts struct {
	// Family, when set, is the report family of the payload on every host:
	// a payload that brings its own thread layer (Emscripten's runtime,
	// the raw workers) is compared with itself first.
	Family string
}

type payloadKind struct {
	doc   string
	forms []Form
	facts PayloadFacts
	make  func(cue.Value) (Payload, error)
}

type hostKind struct {
	doc   string
	form  Form
	facts HostFacts
	make  func(cue.Value) (Host, error)
}

var (
	payloads = map[string]payloadKind{}
	hosts    = map[string]hostKind{}
)

// decoder decodes an environment's settings into S.
func decoder[S any, T any](what string, make func(S) T) func(cue.Value) (T, error) {
	return func(v cue.Value) (T, error) {
		var s S
		if err := v.Decode(&s); err != nil {
			var zero T
			return zero, fmt.Errorf("decode %s settings: %w", what, err)
		}
		return make(s), nil
	}
}

// RegisterPayload adds a payload, offered to hosts in forms, whose
// settings decode into S (its fields tagged with the CUE field names, as
// for encoding/json). It is called from init functions, or from a test.
func RegisterPayload[S any](name, doc string, forms []Form, facts PayloadFacts, make func(S) Payload) {
	if _, dup := payloads[name]; dup {
		panic("env: payload registered twice: " + name)
	}
	payloads[name] = payloadKind{doc: doc, forms: forms, facts: facts, make: decoder("payload "+name, make)}
}

// RegisterHost adds a host, which takes payloads in form, whose settings
// decode into S.
func RegisterHost[S any](name, doc string, form Form, facts HostFacts, make func(S) Host) {
	if _, dup := hosts[name]; dup {
		panic("env: host registered twice: " + name)
	}
	hosts[name] = hostKind{doc: doc, form: form, facts: facts, make: decoder("host "+name, make)}
}

// Payloads lists the registered payloads, sorted.
func Payloads() []string { return sortedKeys(payloads) }

// Hosts lists the registered hosts, sorted.
func Hosts() []string { return sortedKeys(hosts) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PayloadDoc and HostDoc are one line each for `spawnbench envs`.
func PayloadDoc(name string) string { return payloads[name].doc }
func HostDoc(name string) string    { return hosts[name].doc }

// Facts are the host's declared facts; false for an unknown host.
func Facts(host string) (HostFacts, bool) {
	h, ok := hosts[host]
	return h.facts, ok
}

// HostForm is the form host takes payloads in; "" for an unknown host.
func HostForm(host string) Form { return hosts[host].form }

// Family is the report family of payload on host: the payload's own if it
// declares one, else the host's; "" when neither is known.
func Family(payload, host string) string {
	if f := payloads[payload].facts.Family; f != "" {
		return f
	}
	return hosts[host].facts.Family
}

// Runs says whether host can run payload in Go: the host's form is one
// the payload offers and the host does not refuse it. This is the pair
// table; the schema's #Pairs must say the same.
func Runs(payload, host string) bool {
	return offered(payload, host) && !slices.Contains(hosts[host].facts.Refuses, payload)
}

// offered says whether payload offers host's form, whether or not the
// host refuses it.
func offered(payload, host string) bool {
	pk, ok1 := payloads[payload]
	hk, ok2 := hosts[host]
	return ok1 && ok2 && slices.Contains(pk.forms, hk.form)
}

// Environment is one named environment of a spec: a payload on a host.
type Environment struct {
	name, kind  string
	payloadName string
	hostName    string
	payload     Payload
	host        Host
	form        Form
	facts       HostFacts
	adapter     Adapter
}

// New makes the environment name, payload on host (kind is the pair's
// short form, for results), from its settings: the CUE value validated
// against the payload's, host's and pair's definitions, defaults filled.
func New(name, kind, payload, host string, settings cue.Value) (*Environment, error) {
	pk, ok := payloads[payload]
	if !ok {
		return nil, fmt.Errorf("environment %q: payload %q is not yet available in this build of spawnbench; the other environments run", name, payload)
	}
	hk, ok := hosts[host]
	if !ok {
		return nil, fmt.Errorf("environment %q: host %q is not yet available in this build of spawnbench; the other environments run", name, host)
	}
	p, err := pk.make(settings)
	if err != nil {
		return nil, fmt.Errorf("environment %q (%s on %s): %w", name, payload, host, err)
	}
	h, err := hk.make(settings)
	if err != nil {
		return nil, fmt.Errorf("environment %q (%s on %s): %w", name, payload, host, err)
	}
	if !offered(payload, host) {
		return nil, fmt.Errorf("environment %q: payload %s offers no %s, which host %s runs", name, payload, hk.form, host)
	}
	if !Runs(payload, host) {
		return nil, fmt.Errorf("environment %q: host %s cannot run payload %s (the schema's #Refused says why)", name, host, payload)
	}
	e := &Environment{name: name, kind: kind, payloadName: payload, hostName: host, payload: p, host: h, form: hk.form, facts: hk.facts}
	if a, ok := p.(Adapted); ok {
		e.adapter = a.Adapter(hk.form)
	}
	return e, nil
}

func (e *Environment) Name() string { return e.name }

// Kind is the pair's short form.
func (e *Environment) Kind() string    { return e.kind }
func (e *Environment) Payload() string { return e.payloadName }
func (e *Environment) Host() string    { return e.hostName }

// Facts are the host's declared facts.
func (e *Environment) Facts() HostFacts { return e.facts }

// Family is the environment's report family (Family).
func (e *Environment) Family() string { return Family(e.payloadName, e.hostName) }

// Toolchain checks the payload's tools, the adapter's and the host's, in
// that order; Version joins theirs.
func (e *Environment) Toolchain(ctx context.Context) Toolchain {
	parts := []func(context.Context) Toolchain{e.payload.Toolchain}
	if e.adapter != nil {
		parts = append(parts, e.adapter.Toolchain)
	}
	parts = append(parts, e.host.Toolchain)
	var versions, installs []string
	for _, part := range parts {
		tc := part(ctx)
		if !tc.Present {
			return tc
		}
		if tc.Version != "" {
			versions = append(versions, tc.Version)
		}
		installs = append(installs, tc.Install)
	}
	return Toolchain{Present: true, Version: strings.Join(versions, "; "), Install: joinInstalls(installs)}
}

// BuildKey is the payload's: a host never changes the build.
func (e *Environment) BuildKey(ctx context.Context) string { return e.payload.BuildKey(ctx) }

// BuildName names the payload's build directory.
func (e *Environment) BuildName() string { return e.payloadName }

// Build builds the payload.
func (e *Environment) Build(ctx context.Context, srcDir, outDir string) error {
	return e.payload.Build(ctx, srcDir, outDir)
}

// Stage returns the directory the host runs the payload from: buildDir
// itself, or the adapter's staging of it.
func (e *Environment) Stage(ctx context.Context, buildDir string) (string, error) {
	if e.adapter == nil {
		return buildDir, nil
	}
	return e.adapter.Stage(ctx, buildDir)
}

// Run performs one repetition from r.BuildDir (what Stage returned).
func (e *Environment) Run(ctx context.Context, r Repetition) (Outcome, error) {
	return e.host.Run(ctx, e.payload.Entry(e.form, r.Benchmark, r.Arg), r)
}

// Close ends what the host keeps between repetitions (a warm browser);
// the environment can run again after it, starting afresh.
func (e *Environment) Close() error {
	if c, ok := e.host.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
