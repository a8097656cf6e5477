// Package spec loads spawnbench specs and expands them into run plans.
//
// This package is opinionated: a spec is CUE, and CUE alone decides whether
// it is valid. The schema is a CUE package that ships inside the binary
// (schema/*.cue); it joins each environment's payload and host (or the
// pair its kind names), decides which pairs exist, holds every
// default and every rule, cross-field ones included. Go never repeats a
// default or a rule: it decodes what CUE accepted into typed values and
// expands it into a plan whose cells carry everything their processes
// need. Errors name the file, line and field and say what to do.
package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"spawnbench/engine/inputerr"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	"golang.org/x/sys/unix"
)

func inputErrorf(format string, args ...any) error { return inputerr.New(format, args...) }

// Spec is a validated spec with every default filled in.
type Spec struct {
	Path   string
	Name   string
	Source []byte
	// Imports are the files of the packages Source imports from its CUE
	// module (the shipped specs' shared environments), for provenance.
	Imports []SourceFile
	// Hash is the SHA-256 of Source and of Imports, hex: it changes when
	// anything the spec is made of changes.
	Hash string
	// Overrides are the command line's replacements of the spec's values
	// (Overrides.String), folded into Hash; "" for none.
	Overrides string
	// Resolved is the whole spec with every default filled, as JSON: what
	// was measured, for the provenance.
	Resolved     json.RawMessage
	Environments []EnvironmentSpec
	Modes        []string
	N            []int
	Samples      SamplePolicy
	Views        Views
	// CPUs is the pinning; nil means none (the only spelling of it).
	CPUs    []int
	Timeout time.Duration
	// BuildTimeout bounds each build step and toolchain probe.
	BuildTimeout time.Duration
	Schedule     ScheduleSpec
	Calibration  *Calibration
	// BottomLine is the adaptive stopping of the bottom line's cells; nil
	// when the spec has none.
	BottomLine *BottomLinePolicy
}

// BottomLinePolicy is the spec's bottom_line block (the schema's
// #BottomLine) for the cells of Environments (and their one-CPU twins)
// at N: processes allocated before the run from the set From names
// (engine/run's AllocateBottomLine), or, without From, adaptive
// stopping.
type BottomLinePolicy struct {
	Environments []string
	N            []int
	Precision    float64
	MaxProcesses int
	Round        int
	// Budget is the wall time the block may add: per cell in rounds, in
	// all with From.
	Budget time.Duration
	// From is the directory of an earlier set whose spreads and costs
	// size the cells, resolved against the spec's directory; "" for
	// adaptive stopping.
	From string
	// TopUp is, with From, the wall time the run may add after its
	// planned processes for the ratios its own processes leave short.
	TopUp time.Duration
}

// Covers reports whether the policy adapts environment e's cell at n.
func (b *BottomLinePolicy) Covers(e EnvironmentSpec, n int) bool {
	if b == nil || !slices.Contains(b.N, n) {
		return false
	}
	return slices.Contains(b.Environments, e.Name) || e.PlacementOf != "" && slices.Contains(b.Environments, e.PlacementOf)
}

// SourceFile is one file a spec imports.
type SourceFile struct {
	// Name is the package's import path and the file's base name.
	Name string
	Text []byte
}

// ScheduleSpec is the spec's schedule block.
type ScheduleSpec struct {
	Order string
	// Seed is the spec's seed; nil when the plan is to pick one.
	Seed *int64
	// Occasions is the number of blocks the run measures the matrix in,
	// one after another, each block an occasion (1: one occasion).
	Occasions int
	// Settle is how the machine must be before each process starts.
	Settle SettleSpec
}

// SettleSpec is the schedule's settle block: before each process, wait
// until the machine's other work over Window is at most BelowCPUs, for
// at most Cap (0: no settling).
type SettleSpec struct {
	BelowCPUs   float64
	Cap, Window time.Duration
}

// EnvironmentSpec is one environment as declared, validated against its
// payload's, host's and pair's CUE definitions.
type EnvironmentSpec struct {
	Name string
	// Payload and Host are the environment's two axes.
	Payload string
	Host    string
	// Kind is the pair's short form (#Pairs' #kind), whether the spec
	// named the pair by it or by payload and host: results and reports
	// know environments by it.
	Kind string
	// Settings is the environment's CUE value, concrete and with every
	// default filled; env.New decodes it into the payload's and the host's
	// settings structs.
	Settings cue.Value
	// Resolved is Settings as JSON, for provenance and `plan --format json`.
	Resolved json.RawMessage
	// Pos is "file:line" of the declaration, for messages.
	Pos string
	// Processes is the environment's own floor of processes per cell, in
	// place of the spec's; nil when it keeps the spec's.
	Processes *int
	// Pinning is the environment's own pinning: nil for the spec's, empty
	// for none.
	Pinning []int
	// N is the environment's own thread counts, in place of the spec's;
	// nil when it keeps the spec's.
	N []int
	// Min is the environment's own floor of spawns per cell, in place of
	// the spec's; nil when it keeps the spec's.
	Min *int
	// Against is the environment this one is set beside in reports; ""
	// for none.
	Against string
	// Placement is PlaceFree for an environment as declared, PlaceOneCPU
	// for its one-CPU twin (the spec's placement block), and PlacementOf
	// the declared environment the twin measures ("" for PlaceFree).
	Placement   string
	PlacementOf string
	// Traced is set for the traced twin of an environment (the spec's
	// anatomy block), named TracedName(TracedOf): only its processes are
	// traced in the kernel.
	Traced   bool
	TracedOf string
}

// TracedSuffix ends the name of an environment's traced twin.
const TracedSuffix = "@traced"

// TracedName is the name of environment name's traced twin.
func TracedName(name string) string { return name + TracedSuffix }

// Placements an environment is measured in.
const (
	PlaceFree   = "free"
	PlaceOneCPU = "one-cpu"
)

// NOf is the thread counts measured for e: its own, or the spec's.
func (s *Spec) NOf(e EnvironmentSpec) []int {
	if e.N != nil {
		return e.N
	}
	return s.N
}

// CPUsOf is the pinning of e's processes (nil: none): e's own, or the
// spec's.
func (s *Spec) CPUsOf(e EnvironmentSpec) []int {
	if e.Pinning == nil {
		return s.CPUs
	}
	if len(e.Pinning) == 0 {
		return nil
	}
	return e.Pinning
}

// SamplePolicy says how many processes each cell needs.
type SamplePolicy struct {
	// Min is the fewest spawns a cell records.
	Min int
	// Processes is the fewest independent processes a cell runs.
	Processes int
	// Precision is the relative half-width of a cell's interval that
	// counts as converged.
	Precision float64
	// Adaptive adds rounds of Round processes to unconverged cells, up to
	// MaxProcesses each and Budget of wall time per cell.
	Adaptive     bool
	MaxProcesses int
	Round        int
	Budget       time.Duration
	Pause        time.Duration
	Warmup       int
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
		Min          int     `json:"min"`
		Processes    int     `json:"processes"`
		Precision    float64 `json:"precision"`
		Adaptive     bool    `json:"adaptive"`
		MaxProcesses int     `json:"max_processes"`
		Round        int     `json:"round"`
		Budget       string  `json:"budget"`
		Pause        string  `json:"pause"`
		Warmup       int     `json:"warmup"`
	} `json:"samples"`
	Views   Views `json:"views"`
	Pinning struct {
		CPUs []int `json:"cpus"`
	} `json:"pinning"`
	Limits struct {
		Timeout      string `json:"timeout"`
		BuildTimeout string `json:"build_timeout"`
	} `json:"limits"`
	Placement struct {
		OneCPU    []string `json:"one_cpu"`
		N         []int    `json:"n"`
		CPU       *int     `json:"cpu"`
		Processes *int     `json:"processes"`
	} `json:"placement"`
	Anatomy struct {
		Traced    []string `json:"traced"`
		N         []int    `json:"n"`
		Processes *int     `json:"processes"`
	} `json:"anatomy"`
	BottomLine *struct {
		Environments []string `json:"environments"`
		N            []int    `json:"n"`
		Precision    float64  `json:"precision"`
		MaxProcesses int      `json:"max_processes"`
		Round        int      `json:"round"`
		Budget       string   `json:"budget"`
		From         string   `json:"from"`
		TopUp        string   `json:"top_up"`
	} `json:"bottom_line"`
	Schedule struct {
		Order     string `json:"order"`
		Seed      *int64 `json:"seed"`
		Occasions int    `json:"occasions"`
		Settle    struct {
			BelowCPUs float64 `json:"below_cpus"`
			Cap       string  `json:"cap"`
			Window    string  `json:"window"`
		} `json:"settle"`
	} `json:"schedule"`
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

// Parse validates and decodes a spec's source; path is used in messages
// and, for a spec that imports a package of its CUE module (as the
// shipped specs do), to find that module. Evaluation is bounded (see
// bounded.go): a spec that passes EvalTimeout or EvalMemory is refused.
func Parse(path string, src []byte) (*Spec, error) {
	return bounded(path, func() (*Spec, error) { return parse(path, src, nil) })
}

// builtinRoot is where a built-in spec's CUE module appears to cue/load:
// an overlay only, nothing is read from or written to this path.
const builtinRoot = "/spawnbench-builtin-specs"

// ParseBuiltin parses the spec file name of the CUE module held in fsys
// (the shipped specs, embedded in spawnbench, with their cue.mod and
// shared package), as Load would in a checkout; messages name it label.
func ParseBuiltin(fsys fs.FS, name, label string) (*Spec, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("built-in spec %s: %w", name, err)
	}
	module := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == name {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		module[filepath.Join(builtinRoot, filepath.FromSlash(p))] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("built-in spec %s: %w", name, err)
	}
	return parse(label, src, &builtinModule{dir: filepath.Join(builtinRoot, filepath.Dir(filepath.FromSlash(name))), files: module})
}

// builtinModule is the overlay of a built-in spec's module.
type builtinModule struct {
	dir   string
	files map[string][]byte
}

func parse(path string, src []byte, module *builtinModule) (*Spec, error) {
	f, err := parser.ParseFile(path, src, parser.ParseComments)
	if err != nil {
		return nil, cueInputError(path, nil, "is not valid CUE", err)
	}
	if isEmpty(f) {
		return nil, inputErrorf("spec %s is empty; a spec needs at least environments and n, e.g.\n  environments: [{name: \"native\", kind: \"native\"}]\n  n: [1, 10]", path)
	}
	ctx := cuecontext.New()
	sc, err := loadSchema(ctx)
	if err != nil {
		return nil, err
	}
	user, file, imports, err := buildUser(ctx, path, src, module)
	if err != nil {
		return nil, err
	}
	files := map[string]string{file: path}
	// Go explains two mistakes in plainer words than CUE's; CUE rejects
	// them as well (the schema is what decides).
	if err := sc.explainEnvironments(path, files, user); err != nil {
		return nil, err
	}
	v := sc.v.LookupPath(cue.MakePath(cue.Def("Spec"))).Unify(user)
	if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
		return nil, cueInputError(path, files, "does not match the spec schema (see `spawnbench schema`)", err, user, v)
	}
	var raw rawSpec
	if err := v.Decode(&raw); err != nil {
		return nil, cueInputError(path, files, "could not be decoded", err)
	}
	resolved, err := v.MarshalJSON()
	if err != nil {
		return nil, cueInputError(path, files, "could not be resolved", err)
	}
	h := sha256.New()
	h.Write(src)
	for _, f := range imports {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", f.Name, len(f.Text))
		h.Write(f.Text)
	}
	s := &Spec{
		Path:     path,
		Name:     raw.Name,
		Source:   src,
		Imports:  imports,
		Hash:     hex.EncodeToString(h.Sum(nil)),
		Resolved: resolved,
		Modes:    raw.Modes,
		N:        raw.N,
		Views:    raw.Views,
		Samples: SamplePolicy{
			Min: raw.Samples.Min, Processes: raw.Samples.Processes, Precision: raw.Samples.Precision,
			Adaptive: raw.Samples.Adaptive, MaxProcesses: raw.Samples.MaxProcesses, Round: raw.Samples.Round,
			Warmup: raw.Samples.Warmup,
		},
		Schedule: ScheduleSpec{Order: raw.Schedule.Order, Seed: raw.Schedule.Seed, Occasions: raw.Schedule.Occasions},
	}
	if len(raw.Pinning.CPUs) > 0 {
		s.CPUs = raw.Pinning.CPUs
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	// The schema checked every duration with Go's own parser.
	s.Samples.Pause, _ = time.ParseDuration(raw.Samples.Pause)
	s.Samples.Budget, _ = time.ParseDuration(raw.Samples.Budget)
	s.Timeout, _ = time.ParseDuration(raw.Limits.Timeout)
	s.BuildTimeout, _ = time.ParseDuration(raw.Limits.BuildTimeout)
	s.Schedule.Settle.BelowCPUs = raw.Schedule.Settle.BelowCPUs
	s.Schedule.Settle.Cap, _ = time.ParseDuration(raw.Schedule.Settle.Cap)
	s.Schedule.Settle.Window, _ = time.ParseDuration(raw.Schedule.Settle.Window)
	if c := raw.Calibration; c != nil {
		abs, _ := time.ParseDuration(c.Tolerance.Absolute)
		s.Calibration = &Calibration{
			SleepUS: c.SleepUS, Repeats: c.Repeats,
			RelativeTolerance: c.Tolerance.Relative, AbsoluteTolerance: abs,
			CoherenceN: c.Coherence.N, CoherenceRuns: c.Coherence.Processes,
		}
	}
	if err := checkCPUs(path, files, user, s.CPUs); err != nil {
		return nil, err
	}
	envs, err := v.LookupPath(cue.ParsePath("environments")).List()
	if err != nil {
		return nil, cueInputError(path, files, "environments must be a list", err)
	}
	for i := 0; envs.Next(); i++ {
		e := envs.Value()
		var head struct {
			Name, Payload, Host string
			Processes           *int   `json:"processes"`
			N                   []int  `json:"n"`
			Min                 *int   `json:"min"`
			Against             string `json:"against"`
			Pinning             *struct{ CPUs []int }
		}
		if err := e.Decode(&head); err != nil {
			return nil, cueInputError(path, files, "has an environment without a name, payload or host", err)
		}
		kind, err := e.LookupPath(cue.MakePath(cue.Def("kind"))).String()
		if err != nil {
			return nil, cueInputError(path, files, fmt.Sprintf("environment %q: its pair has no short form (#kind)", head.Name), err)
		}
		var pinning []int
		if head.Pinning != nil {
			pinning = append([]int{}, head.Pinning.CPUs...)
			at := user.LookupPath(cue.MakePath(cue.Str("environments"), cue.Index(i)))
			if err := checkCPUs(path, files, at, pinning); err != nil {
				return nil, err
			}
		}
		js, err := e.MarshalJSON()
		if err != nil {
			return nil, cueInputError(path, files, fmt.Sprintf("environment %q", head.Name), err)
		}
		s.Environments = append(s.Environments, EnvironmentSpec{
			Name: head.Name, Payload: head.Payload, Host: head.Host, Kind: kind, Settings: e, Resolved: js, Processes: head.Processes, N: head.N, Min: head.Min, Against: head.Against,
			Pos:     position(path, files, user.LookupPath(cue.MakePath(cue.Str("environments"), cue.Index(i)))),
			Pinning: pinning, Placement: PlaceFree,
		})
	}
	if err := checkAgainst(path, s.Environments); err != nil {
		return nil, err
	}
	if err := s.addOneCPUTwins(path, files, user, raw.Placement.OneCPU, raw.Placement.N, raw.Placement.CPU, raw.Placement.Processes); err != nil {
		return nil, err
	}
	if b := raw.BottomLine; b != nil {
		at := position(path, files, user.LookupPath(cue.ParsePath("bottom_line")))
		for _, name := range b.Environments {
			if !slices.ContainsFunc(s.Environments, func(e EnvironmentSpec) bool { return e.Name == name }) {
				return nil, inputErrorf("%s: bottom_line.environments names %q, which the spec does not declare; name one of its environments", at, name)
			}
		}
		budget, _ := time.ParseDuration(b.Budget)
		topUp, _ := time.ParseDuration(b.TopUp)
		if topUp > 0 && b.From == "" {
			return nil, inputErrorf("%s: bottom_line.top_up corrects an allocation made from an earlier set, and this block has no from; give from, or leave top_up out (without from, round and budget add processes already)", at)
		}
		from := b.From
		if from != "" && !filepath.IsAbs(from) {
			from = filepath.Join(filepath.Dir(path), from)
		}
		s.BottomLine = &BottomLinePolicy{Environments: b.Environments, N: b.N, Precision: b.Precision,
			MaxProcesses: b.MaxProcesses, Round: b.Round, Budget: budget, From: from, TopUp: topUp}
	}
	if err := s.addTracedTwins(path, files, user, raw.Anatomy.Traced, raw.Anatomy.N, raw.Anatomy.Processes); err != nil {
		return nil, err
	}
	return s, nil
}

// isEmpty reports whether a file declares nothing (comments, a package
// clause and imports only).
func isEmpty(f *ast.File) bool {
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
		default:
			return false
		}
	}
	return true
}

// buildUser builds the spec's own value with cue/load, so a spec may import
// packages of the CUE module it lives in (specs/cue.mod). It returns the
// file name the loader gave the spec, to map positions back to path, and
// the imported files.
func buildUser(ctx *cue.Context, path string, src []byte, module *builtinModule) (cue.Value, string, []SourceFile, error) {
	file, err := filepath.Abs(path)
	if err != nil {
		return cue.Value{}, "", nil, inputErrorf("spec %s: %v", path, err)
	}
	overlay := map[string]load.Source{}
	if module != nil {
		file = filepath.Join(module.dir, "spec.cue")
		for name, b := range module.files {
			overlay[name] = load.FromBytes(b)
		}
	}
	// The loader sees the source under a name of its own, in the spec's
	// directory (where its CUE module is found): it skips files named
	// *_test.cue, _* or .*, and wants .cue, while a spec may be named
	// anything (a built-in one has a descriptive name).
	file = filepath.Join(filepath.Dir(file), "spawnbench-spec-overlay.cue")
	overlay[file] = load.FromBytes(src)
	cfg := &load.Config{Dir: filepath.Dir(file), Overlay: overlay}
	insts := load.Instances([]string{file}, cfg)
	files := map[string]string{file: path}
	if err := insts[0].Err; err != nil {
		return cue.Value{}, "", nil, cueInputError(path, files, "could not be loaded", err)
	}
	v := ctx.BuildInstance(insts[0])
	if err := v.Err(); err != nil {
		return cue.Value{}, "", nil, cueInputError(path, files, "is not valid CUE", err)
	}
	var imports []SourceFile
	for _, dep := range insts[0].Dependencies() {
		for _, bf := range dep.BuildFiles {
			text, err := os.ReadFile(bf.Filename)
			if b, ok := module.file(bf.Filename); ok {
				text, err = b, nil
			}
			if err != nil {
				return cue.Value{}, "", nil, inputErrorf("spec %s imports %s: %v", path, dep.ImportPath, err)
			}
			imports = append(imports, SourceFile{Name: dep.ImportPath + "/" + filepath.Base(bf.Filename), Text: text})
		}
	}
	sort.Slice(imports, func(i, j int) bool { return imports[i].Name < imports[j].Name })
	return v, file, imports, nil
}

// file is one file of the module, if it holds it.
func (m *builtinModule) file(name string) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	b, ok := m.files[name]
	return b, ok
}

// explainEnvironments words an unknown kind, payload or host, a pair that
// cannot run and a duplicate environment name plainly. CUE rejects them
// as well (the schema is what decides, and the pairs are the schema's).
func (sc *Schema) explainEnvironments(path string, files map[string]string, user cue.Value) error {
	it, err := user.LookupPath(cue.ParsePath("environments")).List()
	if err != nil {
		return nil // the schema says what is wrong
	}
	seen := map[string]string{}
	for it.Next() {
		e := it.Value()
		name, _ := e.LookupPath(cue.ParsePath("name")).String()
		if err := sc.explainPair(path, files, name, e); err != nil {
			return err
		}
		if name == "" {
			continue
		}
		pos := position(path, files, e)
		if prev, dup := seen[name]; dup {
			return inputErrorf("%s: environment name %q is used twice (first at %s); give each environment its own name", pos, name, prev)
		}
		seen[name] = pos
	}
	return nil
}

// explainPair checks one environment's kind, or its payload and host.
func (sc *Schema) explainPair(path string, files map[string]string, name string, e cue.Value) error {
	kv, pv, hv := e.LookupPath(cue.ParsePath("kind")), e.LookupPath(cue.ParsePath("payload")), e.LookupPath(cue.ParsePath("host"))
	if !kv.Exists() && (!pv.Exists() || !hv.Exists()) {
		return inputErrorf("%s: environment %q has no kind, nor payload and host; give kind: one of %s, or payload: one of %s and host: one of %s (run `spawnbench envs`)",
			position(path, files, e), name, strings.Join(sc.KindNames(), ", "), strings.Join(sc.PayloadNames(), ", "), strings.Join(sc.HostNames(), ", "))
	}
	var payload, host string
	if kind, err := kv.String(); err == nil {
		p, h, ok := sc.PairOfKind(kind)
		if !ok {
			return inputErrorf("%s: environment %q: unknown kind %q; %sknown kinds: %s (run `spawnbench envs`)",
				position(path, files, kv), name, kind, guess(kind, sc.KindNames()), strings.Join(sc.KindNames(), ", "))
		}
		payload, host = p, h
	}
	if p, err := pv.String(); err == nil {
		if !slices.Contains(sc.PayloadNames(), p) {
			return inputErrorf("%s: environment %q: unknown payload %q; %sknown payloads: %s (run `spawnbench envs`)",
				position(path, files, pv), name, p, guess(p, sc.PayloadNames()), strings.Join(sc.PayloadNames(), ", "))
		}
		if payload != "" && payload != p {
			return inputErrorf("%s: environment %q: kind %q is payload %q, not %q; give the kind or the payload and host, not both",
				position(path, files, pv), name, mustString(kv), payload, p)
		}
		payload = p
	}
	if h, err := hv.String(); err == nil {
		if !slices.Contains(sc.HostNames(), h) {
			return inputErrorf("%s: environment %q: unknown host %q; %sknown hosts: %s (run `spawnbench envs`)",
				position(path, files, hv), name, h, guess(h, sc.HostNames()), strings.Join(sc.HostNames(), ", "))
		}
		if host != "" && host != h {
			return inputErrorf("%s: environment %q: kind %q is host %q, not %q; give the kind or the payload and host, not both",
				position(path, files, hv), name, mustString(kv), host, h)
		}
		host = h
	}
	if payload == "" || host == "" {
		return nil // not concrete yet: CUE says what is wrong
	}
	if _, ok := sc.PairKind(payload, host); !ok {
		if why, refused := sc.Refusal(payload, host); refused {
			return inputErrorf("%s: environment %q: %s cannot run on %s: %s; hosts that run it: %s",
				position(path, files, hv), name, sc.payloadTitle(payload), host, why, strings.Join(sc.HostsOf(payload), ", "))
		}
		return inputErrorf("%s: environment %q: %s cannot run on %s; hosts that run it: %s",
			position(path, files, hv), name, sc.payloadTitle(payload), host, strings.Join(sc.HostsOf(payload), ", "))
	}
	return nil
}

func mustString(v cue.Value) string {
	s, _ := v.String()
	return s
}

// SafeName is the spec's name made safe as one path component, for the
// default output directory. The schema already restricts a declared name;
// a name taken from the file's name may hold anything.
func (s *Spec) SafeName() string { return safeComponent(s.Name) }

var unsafeRun = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeComponent(name string) string {
	out := strings.TrimLeft(unsafeRun.ReplaceAllString(name, "-"), ".-")
	if len(out) > 100 {
		out = out[:100]
	}
	if out == "" {
		return "spec"
	}
	return out
}

// Pinning renders a CPU list for people: "none" for no pinning, else
// "0,1". It is the one place no pinning is spelled.
func Pinning(cpus []int) string {
	if len(cpus) == 0 {
		return "none"
	}
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

func checkCPUs(path string, files map[string]string, v cue.Value, cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	var have unix.CPUSet
	if err := unix.SchedGetaffinity(0, &have); err != nil {
		return fmt.Errorf("read this process's CPU affinity: %w", err)
	}
	var avail []int
	for c := 0; c < 1024; c++ {
		if have.IsSet(c) {
			avail = append(avail, c)
		}
	}
	for _, c := range cpus {
		if !have.IsSet(c) {
			return inputErrorf("%s: pinning.cpus: CPU %d is not available on this machine (available: %s); pin to CPUs from that list",
				position(path, files, v.LookupPath(cue.ParsePath("pinning.cpus"))), c, Pinning(avail))
		}
	}
	return nil
}

// position is "file:line" of v, naming the spec as the user did.
func position(path string, files map[string]string, v cue.Value) string {
	if p := v.Pos(); p.IsValid() {
		if s, ok := displayPos(path, files, p); ok {
			return s[:strings.LastIndexByte(s, ':')]
		}
	}
	return path
}

// displayPos renders a position "file:line:column" when it is in a file
// the user wrote (the spec or a package it imports), not in the schema.
func displayPos(path string, files map[string]string, p token.Pos) (string, bool) {
	if !p.IsValid() {
		return "", false
	}
	name := p.Filename()
	switch {
	case name == path:
	case files[name] != "":
		name = files[name]
	case strings.HasPrefix(name, schemaRoot) || name == "":
		return "", false
	default:
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
				name = rel
			}
		}
	}
	return fmt.Sprintf("%s:%d:%d", name, p.Line(), p.Column()), true
}

// checkAgainst holds every environment's against to another environment
// of the spec.
func checkAgainst(path string, envs []EnvironmentSpec) error {
	names := map[string]bool{}
	for _, e := range envs {
		names[e.Name] = true
	}
	for _, e := range envs {
		switch {
		case e.Against == "":
		case e.Against == e.Name:
			return inputErrorf("spec %s: environment %q (%s) is set against itself; name another environment of the spec", path, e.Name, e.Pos)
		case !names[e.Against]:
			return inputErrorf("spec %s: environment %q (%s) is set against %q, which the spec does not declare; name one of its environments", path, e.Name, e.Pos, e.Against)
		}
	}
	return nil
}

// addOneCPUTwins adds, after the declared environments, the one-CPU twin
// of each environment the placement block names: the same environment
// pinned to one CPU, at the block's n (those of them it measures) and
// with its floor of processes.
func (s *Spec) addOneCPUTwins(path string, files map[string]string, user cue.Value, names []string, ns []int, cpu, processes *int) error {
	if len(names) == 0 {
		return nil
	}
	at := user.LookupPath(cue.ParsePath("placement"))
	one := 0
	if cpu != nil {
		one = *cpu
		if err := checkCPUs(path, files, at, []int{one}); err != nil {
			return err
		}
	} else if one = lastCPU(s.CPUs); one < 0 {
		return inputErrorf("%s: placement: cannot read which CPUs this process may use; give placement.cpu", position(path, files, at))
	}
	blk := twinBlock{field: "placement.one_cpu", nField: "placement.n", hint: "name one of its environments", nameOf: OneCPUName}
	return s.addTwins(position(path, files, at), blk, names, ns, func(name string, twin *EnvironmentSpec) {
		twin.Placement, twin.PlacementOf = PlaceOneCPU, name
		twin.Pinning = []int{one}
		if processes != nil {
			twin.Processes = processes
		}
	})
}

// addTracedTwins adds, after every other environment, the traced twin of
// each environment the anatomy block names (a declared one or a one-CPU
// twin): the same environment, traced, at the block's n (those of them it
// measures) and with its processes. It is no one's placement twin, so
// reports never take it for the one-CPU figure.
func (s *Spec) addTracedTwins(path string, files map[string]string, user cue.Value, names []string, ns []int, processes *int) error {
	if len(names) == 0 {
		return nil
	}
	at := user.LookupPath(cue.ParsePath("anatomy"))
	blk := twinBlock{field: "anatomy.traced", nField: "anatomy.n", hint: "name one of its environments, or a one-CPU twin of its placement block", nameOf: TracedName}
	return s.addTwins(position(path, files, at), blk, names, ns, func(name string, twin *EnvironmentSpec) {
		twin.Traced, twin.TracedOf = true, name
		twin.PlacementOf = ""
		if processes != nil {
			// Exactly that many at every n: the parts are medians over
			// processes, and the twins are no part of the study's sample
			// policy (its 100 spawns at n = 1 would be 100 processes).
			one := 1
			twin.Processes, twin.Min = processes, &one
		}
	})
}

// twinBlock is what a block of twins (placement, anatomy) says in its
// messages, and how it names a twin.
type twinBlock struct {
	field, nField, hint string
	nameOf              func(string) string
}

// addTwins appends a twin of each environment names, made by set from
// a copy of it: named by the block, set against the twin of its
// environment's against where that has a twin too, and at the block's n
// (those of them it measures). pos is the block's position, for messages.
func (s *Spec) addTwins(pos string, blk twinBlock, names []string, ns []int, set func(name string, twin *EnvironmentSpec)) error {
	byName := map[string]EnvironmentSpec{}
	for _, e := range s.Environments {
		byName[e.Name] = e
	}
	for _, name := range names {
		e, ok := byName[name]
		if !ok {
			return inputErrorf("%s: %s names %q, which the spec does not declare; %s", pos, blk.field, name, blk.hint)
		}
		twin := e
		twin.Name = blk.nameOf(name)
		set(name, &twin)
		twin.Against = ""
		if slices.Contains(names, e.Against) {
			twin.Against = blk.nameOf(e.Against)
		}
		if ns != nil {
			if twin.N = s.nWithin(e, ns); len(twin.N) == 0 {
				return inputErrorf("%s: %s %v: environment %q measures none of them (its n: %v); give n it measures", pos, blk.nField, ns, name, s.NOf(e))
			}
		}
		s.Environments = append(s.Environments, twin)
	}
	return nil
}

// nWithin is the thread counts of ns that e measures, in e's order: a
// twin's n.
func (s *Spec) nWithin(e EnvironmentSpec, ns []int) []int {
	var out []int
	for _, n := range s.NOf(e) {
		if slices.Contains(ns, n) {
			out = append(out, n)
		}
	}
	return out
}

// OneCPUName is the name of environment name's one-CPU twin.
func OneCPUName(name string) string { return name + "@" + PlaceOneCPU }

// lastCPU is the highest CPU of cpus, or without them of the CPUs this
// process may use; -1 when they cannot be read.
func lastCPU(cpus []int) int {
	if len(cpus) > 0 {
		return slices.Max(cpus)
	}
	var have unix.CPUSet
	if err := unix.SchedGetaffinity(0, &have); err != nil {
		return -1
	}
	last := -1
	for c := 0; c < 1024; c++ {
		if have.IsSet(c) {
			last = c
		}
	}
	return last
}
