// Package spec loads spawnbench specs and expands them into run plans.
//
// This package is opinionated: a spec is CUE, checked against a schema that
// ships inside the binary (schema/*.cue), and nothing reaches the runner
// until every field is valid and concrete. Errors name the file, line and
// field and say what to do. Defaults live in the schema alone; Go never
// repeats them.
package spec

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"spawnbench/engine/inputerr"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"golang.org/x/sys/unix"
)

//go:embed schema/*.cue
var schemaFS embed.FS

func inputErrorf(format string, args ...any) error { return inputerr.New(format, args...) }

// Spec is a validated spec with every default filled in.
type Spec struct {
	Path   string
	Name   string
	Source []byte
	// Hash is the SHA-256 of Source, hex.
	Hash         string
	Environments []EnvironmentSpec
	Modes        []string
	N            []int
	Samples      SamplePolicy
	Views        Views
	// CPUs is the pinning; empty means none.
	CPUs        []int
	Timeout     time.Duration
	Calibration *Calibration
}

// EnvironmentSpec is one environment as declared, its settings validated
// against its kind's CUE definition.
type EnvironmentSpec struct {
	Name string
	Kind string
	// Settings is the environment's whole CUE value as JSON, defaults filled.
	Settings json.RawMessage
	// Pos is "file:line" of the declaration, for messages.
	Pos string
}

// SamplePolicy says how many processes each cell needs.
type SamplePolicy struct {
	Min    int
	Pause  time.Duration
	Warmup int
}

// Views is the last-K trim used by reports; stored data is never trimmed.
type Views struct {
	Last int
	MinN int
}

// Calibration configures `spawnbench calibrate`.
type Calibration struct {
	SleepUS           []int
	Repeats           int
	RelativeTolerance float64
	AbsoluteTolerance time.Duration
	CoherenceN        int
	CoherenceRuns     int
}

// rawSpec mirrors #Spec for decoding.
type rawSpec struct {
	Name    string   `json:"name"`
	Modes   []string `json:"modes"`
	N       []int    `json:"n"`
	Samples struct {
		Min    int    `json:"min"`
		Pause  string `json:"pause"`
		Warmup int    `json:"warmup"`
	} `json:"samples"`
	Views   Views `json:"views"`
	Pinning struct {
		CPUs []int `json:"cpus"`
	} `json:"pinning"`
	Limits struct {
		Timeout string `json:"timeout"`
	} `json:"limits"`
	Calibration *struct {
		SleepUS   []int `json:"sleep_us"`
		Repeats   int   `json:"repeats"`
		Tolerance struct {
			Relative float64 `json:"relative"`
			Absolute string  `json:"absolute"`
		} `json:"tolerance"`
		Coherence struct {
			N         int `json:"n"`
			Processes int `json:"processes"`
		} `json:"coherence"`
	} `json:"calibration"`
}

// Schema is the compiled, embedded schema.
type Schema struct {
	ctx *cue.Context
	v   cue.Value
}

// LoadSchema compiles the embedded schema files as one.
func LoadSchema() (*Schema, error) {
	names, err := schemaFS.ReadDir("schema")
	if err != nil {
		return nil, err
	}
	var src strings.Builder
	for _, n := range names {
		b, err := schemaFS.ReadFile("schema/" + n.Name())
		if err != nil {
			return nil, err
		}
		src.Write(b)
		src.WriteString("\n")
	}
	ctx := cuecontext.New()
	v := ctx.CompileString(src.String(), cue.Filename("spawnbench-schema.cue"))
	if v.Err() != nil {
		return nil, fmt.Errorf("embedded schema: %w", v.Err())
	}
	return &Schema{ctx: ctx, v: v}, nil
}

// SchemaText returns the embedded schema sources, for `spawnbench schema`.
func SchemaText() string {
	names, _ := schemaFS.ReadDir("schema")
	var b strings.Builder
	for _, n := range names {
		src, _ := schemaFS.ReadFile("schema/" + n.Name())
		fmt.Fprintf(&b, "// ---- %s ----\n%s\n", n.Name(), src)
	}
	return b.String()
}

// Load reads, validates and decodes the spec at path.
func Load(path string) (*Spec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputErrorf("spec %s: no such file; give the path of a .cue spec such as specs/sequential.cue", path)
		}
		return nil, inputErrorf("spec %s: %v", path, err)
	}
	return Parse(path, src)
}

// Parse validates and decodes a spec's source; path is used in messages.
func Parse(path string, src []byte) (*Spec, error) {
	sc, err := LoadSchema()
	if err != nil {
		return nil, err
	}
	user := sc.ctx.CompileBytes(src, cue.Filename(path))
	if err := user.Err(); err != nil {
		return nil, cueInputError(path, "is not valid CUE", err)
	}
	v := sc.v.LookupPath(cue.MakePath(cue.Def("Spec"))).Unify(user)
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, cueInputError(path, "does not match the spec schema (see `spawnbench schema`)", err)
	}
	var raw rawSpec
	if err := v.Decode(&raw); err != nil {
		return nil, cueInputError(path, "could not be decoded", err)
	}
	sum := sha256.Sum256(src)
	s := &Spec{
		Path:    path,
		Name:    raw.Name,
		Source:  src,
		Hash:    hex.EncodeToString(sum[:]),
		Modes:   raw.Modes,
		N:       raw.N,
		Views:   raw.Views,
		CPUs:    raw.Pinning.CPUs,
		Samples: SamplePolicy{Min: raw.Samples.Min, Warmup: raw.Samples.Warmup},
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if s.Samples.Pause, err = parseDuration(raw.Samples.Pause); err != nil {
		return nil, fieldError(path, user, "samples.pause", err.Error())
	}
	if s.Timeout, err = parseDuration(raw.Limits.Timeout); err != nil || s.Timeout <= 0 {
		return nil, fieldError(path, user, "limits.timeout", "must be a positive duration such as \"120s\"")
	}
	if c := raw.Calibration; c != nil {
		abs, err := parseDuration(c.Tolerance.Absolute)
		if err != nil {
			return nil, fieldError(path, user, "calibration.tolerance.absolute", err.Error())
		}
		s.Calibration = &Calibration{
			SleepUS: c.SleepUS, Repeats: c.Repeats,
			RelativeTolerance: c.Tolerance.Relative, AbsoluteTolerance: abs,
			CoherenceN: c.Coherence.N, CoherenceRuns: c.Coherence.Processes,
		}
	}
	if err := checkCPUs(path, user, s.CPUs); err != nil {
		return nil, err
	}
	seen := map[string]string{}
	// Environments are checked from the user's own value: after
	// unification with #Spec their nested structs are closed, and a kind's
	// defaults for the fields a user left out would be refused.
	envs := user.LookupPath(cue.ParsePath("environments"))
	it, err := envs.List()
	if err != nil {
		return nil, cueInputError(path, "environments must be a list", err)
	}
	for it.Next() {
		e, err := sc.environment(path, it.Value())
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[e.Name]; dup {
			return nil, inputErrorf("%s: environment name %q is used twice (first at %s); give each environment its own name", e.Pos, e.Name, prev)
		}
		seen[e.Name] = e.Pos
		s.Environments = append(s.Environments, e)
	}
	return s, nil
}

// environment checks one environment against its kind's definition.
func (sc *Schema) environment(path string, v cue.Value) (EnvironmentSpec, error) {
	pos := position(path, v)
	var head struct{ Name, Kind string }
	if err := v.Decode(&head); err != nil {
		return EnvironmentSpec{}, cueInputError(path, "has an environment without a name or kind", err)
	}
	def, ok := sc.kindDef(head.Kind)
	if !ok {
		return EnvironmentSpec{}, inputErrorf("%s: environment %q: unknown kind %q; known kinds: %s (run `spawnbench envs`)",
			position(path, v.LookupPath(cue.ParsePath("kind"))), head.Name, head.Kind, strings.Join(sc.KindNames(), ", "))
	}
	u := def.Unify(v)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return EnvironmentSpec{}, cueInputError(path, fmt.Sprintf("environment %q does not match kind %q (see `spawnbench schema`)", head.Name, head.Kind), err)
	}
	js, err := u.MarshalJSON()
	if err != nil {
		return EnvironmentSpec{}, cueInputError(path, fmt.Sprintf("environment %q", head.Name), err)
	}
	return EnvironmentSpec{Name: head.Name, Kind: head.Kind, Settings: js, Pos: pos}, nil
}

func (sc *Schema) kindDef(kind string) (cue.Value, bool) {
	if kind == "" {
		return cue.Value{}, false
	}
	d := sc.v.LookupPath(cue.MakePath(cue.Def("Kinds"), cue.Str(kind)))
	return d, d.Exists()
}

// KindNames lists the kinds the schema defines.
func (sc *Schema) KindNames() []string {
	var out []string
	it, err := sc.v.LookupPath(cue.MakePath(cue.Def("Kinds"))).Fields()
	if err != nil {
		return nil
	}
	for it.Next() {
		out = append(out, it.Selector().Unquoted())
	}
	sort.Strings(out)
	return out
}

// DefaultEnvironment is an environment of the kind with every default
// setting, named after the kind. `spawnbench envs` checks toolchains with it.
func (sc *Schema) DefaultEnvironment(kind string) (EnvironmentSpec, error) {
	def, ok := sc.kindDef(kind)
	if !ok {
		return EnvironmentSpec{}, fmt.Errorf("unknown kind %q", kind)
	}
	u := def.Unify(sc.ctx.CompileString(fmt.Sprintf("{name: %q, kind: %q}", kind, kind)))
	js, err := u.MarshalJSON()
	if err != nil {
		// A kind with a required field (command's run) has no default.
		return EnvironmentSpec{}, fmt.Errorf("kind %s has required settings: %w", kind, err)
	}
	return EnvironmentSpec{Name: kind, Kind: kind, Settings: js}, nil
}

func checkCPUs(path string, v cue.Value, cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	var have unix.CPUSet
	if err := unix.SchedGetaffinity(0, &have); err != nil {
		return fmt.Errorf("read this process's CPU affinity: %w", err)
	}
	var avail []string
	for c := 0; c < 1024; c++ {
		if have.IsSet(c) {
			avail = append(avail, fmt.Sprint(c))
		}
	}
	for _, c := range cpus {
		if c >= 1024 || !have.IsSet(c) {
			return fieldError(path, v, "pinning.cpus",
				fmt.Sprintf("CPU %d is not available on this machine (available: %s); pin to CPUs from that list", c, strings.Join(avail, ",")))
		}
	}
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µs", "us"))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"10ms\"", s)
	}
	return d, nil
}

func fieldError(path string, v cue.Value, field, msg string) error {
	return inputErrorf("%s: %s: %s", position(path, v.LookupPath(cue.ParsePath(field))), field, msg)
}

func position(path string, v cue.Value) string {
	pos := v.Pos()
	if pos.IsValid() && pos.Filename() == path {
		return fmt.Sprintf("%s:%d", path, pos.Line())
	}
	return path
}

// cueInputError turns CUE's errors into one message that keeps each
// error's position in the user's file.
func cueInputError(path, what string, err error) error {
	var lines []string
	for _, e := range cueerrors.Errors(err) {
		msg := e.Error()
		where := path
		for _, p := range cueerrors.Positions(e) {
			if p.Filename() == path {
				where = fmt.Sprintf("%s:%d:%d", path, p.Line(), p.Column())
				break
			}
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", where, msg))
	}
	sort.Strings(lines)
	lines = dedupe(lines)
	if len(lines) > 8 {
		lines = append(lines[:8], fmt.Sprintf("  ... and %d more", len(lines)-8))
	}
	return inputErrorf("spec %s %s:\n%s", path, what, strings.Join(lines, "\n"))
}

func dedupe(in []string) []string {
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}
