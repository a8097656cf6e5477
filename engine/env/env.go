// Package env holds spawnbench's environment kinds: one small type per kind,
// each in its own file, behind the Environment interface.
//
// This package is opinionated: an environment knows how to tell whether its
// toolchain is here, how to build the C benchmarks (or its own JS), and how
// to run one repetition in a fresh process or page. It knows nothing of
// plans, samples or files; the runner (engine/run) drives it and the output
// protocol (see c/sb.h) is its only contract with the benchmark.
//
// A kind registers itself with Register from an init function, naming its
// settings struct as the type parameter. Its settings come from the spec's
// CUE, already validated against the kind's CUE definition
// (engine/spec/schema), which holds every default and rule; Register
// decodes them into that struct with cue.Value.Decode, so a kind checks
// nothing itself.
package env

import (
	"context"
	"fmt"
	"io"
	"sort"

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

// Benchmarks lists every benchmark an environment builds.
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
	// BuildDir is where Build put its output for this environment.
	BuildDir string
	// CPUs is the affinity for every process this repetition starts; empty
	// means no pinning.
	CPUs []int
	// Stdout, when set, receives the benchmark's standard output as it
	// streams (an engine/protocol Collector, say), and the Outcome's
	// Stdout is nil.
	Stdout io.Writer
}

// Outcome is what one repetition produced, before any interpretation.
// A repetition that ran but failed still returns its Outcome (and a nil
// error), so samples printed before a crash are kept.
type Outcome = proc.Outcome

// Environment is one named environment of a spec, of some kind.
type Environment interface {
	Name() string
	Kind() string
	// Toolchain checks the tools this environment needs.
	Toolchain(ctx context.Context) Toolchain
	// BuildKey is a string that changes whenever Build's output would: the
	// settings and tool versions. The runner hashes it with the sources to
	// cache builds.
	BuildKey(ctx context.Context) string
	// Build compiles every benchmark from srcDir (a copy of Sources) into
	// outDir.
	Build(ctx context.Context, srcDir, outDir string) error
	// Run performs one repetition. An error means the repetition could not
	// even start; anything the benchmark did is reported in the Outcome.
	Run(ctx context.Context, r Repetition) (Outcome, error)
}

// Kind makes Environments of one kind from their settings.
type Kind struct {
	Name string
	// Doc is one line for `spawnbench envs`.
	Doc string
	// New builds an environment named name from the kind's settings: the
	// CUE value validated against the kind's definition, defaults filled.
	New func(name string, settings cue.Value) (Environment, error)
}

var kinds = map[string]Kind{}

// Register adds a kind whose settings decode into S (its fields tagged
// with the CUE field names, as for encoding/json); make builds the
// environment from them. It is called from init functions.
func Register[S any](name, doc string, make func(name string, settings S) Environment) {
	if _, dup := kinds[name]; dup {
		panic("env: kind registered twice: " + name)
	}
	kinds[name] = Kind{Name: name, Doc: doc, New: func(envName string, v cue.Value) (Environment, error) {
		var s S
		if err := v.Decode(&s); err != nil {
			return nil, fmt.Errorf("decode %s settings: %w", name, err)
		}
		return make(envName, s), nil
	}}
}

// Lookup returns the kind with this name.
func Lookup(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Kinds returns every registered kind, sorted by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// New makes an environment of the named kind.
func New(kind, name string, settings cue.Value) (Environment, error) {
	k, ok := kinds[kind]
	if !ok {
		return nil, fmt.Errorf("kind %q is not yet available in this build of spawnbench; the other environments run", kind)
	}
	e, err := k.New(name, settings)
	if err != nil {
		return nil, fmt.Errorf("environment %q (kind %s): %w", name, kind, err)
	}
	return e, nil
}
