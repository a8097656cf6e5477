package spec

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
)

//go:embed schema/*.cue
var schemaFS embed.FS

// schemaRoot is where the embedded schema package appears to cue/load: an
// overlay only, nothing is read from or written to this path.
const schemaRoot = "/spawnbench-embedded-schema"

// Schema is the compiled, embedded schema package.
type Schema struct {
	ctx *cue.Context
	v   cue.Value
}

// LoadSchema compiles the embedded schema as a CUE package, so its files
// may import CUE's standard packages.
func LoadSchema() (*Schema, error) {
	return loadSchema(cuecontext.New())
}

// extraSchema are CUE files added to the schema package with
// ExtendSchema, by base name.
var extraSchema = struct {
	sync.Mutex
	files map[string][]byte
}{files: map[string][]byte{}}

// ExtendSchema adds the CUE file at path (package schema) to the schema
// of every spec parsed after it: a host or payload declared outside the
// shipped schema, with its Go type registered in engine/env (a test's
// fake host, say). Its definitions are checked with the rest; a file that
// breaks the schema fails here.
func ExtendSchema(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("extend the schema: %w", err)
	}
	extraSchema.Lock()
	extraSchema.files["extra_"+filepath.Base(path)] = b
	extraSchema.Unlock()
	if _, err := LoadSchema(); err != nil {
		extraSchema.Lock()
		delete(extraSchema.files, "extra_"+filepath.Base(path))
		extraSchema.Unlock()
		return fmt.Errorf("extend the schema with %s: %w", path, err)
	}
	return nil
}

func loadSchema(ctx *cue.Context) (*Schema, error) {
	overlay := map[string]load.Source{
		schemaRoot + "/cue.mod/module.cue": load.FromString("module: \"spawnbench.invalid/schema@v0\"\nlanguage: version: \"v0.17.0\"\n"),
	}
	extraSchema.Lock()
	for name, b := range extraSchema.files {
		overlay[schemaRoot+"/"+name] = load.FromBytes(b)
	}
	extraSchema.Unlock()
	err := fs.WalkDir(schemaFS, "schema", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := schemaFS.ReadFile(p)
		if err != nil {
			return err
		}
		overlay[schemaRoot+"/"+path.Base(p)] = load.FromBytes(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	insts := load.Instances([]string{"."}, &load.Config{Dir: schemaRoot, Overlay: overlay})
	if err := insts[0].Err; err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	v := ctx.BuildInstance(insts[0])
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	return &Schema{ctx: ctx, v: v}, nil
}

// SchemaText is the embedded schema as one self-contained CUE file whose
// top level is a spec: the package's files merged (one import block, no
// package clause) and #Spec embedded. A self-contained spec appended to it
// passes `cue vet -c` exactly when `spawnbench plan` accepts the spec
// (pinning to CPUs this machine lacks aside).
func SchemaText() (string, error) {
	names, err := fs.Glob(schemaFS, "schema/*.cue")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	imports := map[string]bool{}
	var body strings.Builder
	for _, name := range names {
		src, err := schemaFS.ReadFile(name)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			return "", fmt.Errorf("embedded schema %s: %w", name, err)
		}
		var decls []ast.Decl
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.Package:
				// Comments on the package clause belong to the file.
				for _, c := range ast.Comments(d) {
					decls = append(decls, &ast.CommentGroup{Doc: c.Doc, List: c.List})
				}
			case *ast.ImportDecl:
				for _, s := range d.Specs {
					p, _ := strconv.Unquote(s.Path.Value)
					imports[p] = true
				}
			default:
				decls = append(decls, d)
			}
		}
		b, err := format.Node(&ast.File{Decls: decls}, format.Simplify())
		if err != nil {
			return "", fmt.Errorf("embedded schema %s: %w", name, err)
		}
		fmt.Fprintf(&body, "\n// ---- %s ----\n\n%s\n", path.Base(name), strings.TrimSpace(string(b)))
	}
	var paths []string
	for p := range imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out strings.Builder
	out.WriteString("// The spawnbench spec schema (`spawnbench schema`), from engine/spec/schema.\n")
	out.WriteString("// Its top level is a spec: append a spec without imports to this file and\n")
	out.WriteString("// run `cue vet -c` on the result to check it as `spawnbench plan` does.\n\n")
	out.WriteString("import (\n")
	for _, p := range paths {
		fmt.Fprintf(&out, "\t%q\n", p)
	}
	fields, err := specFields()
	if err != nil {
		return "", err
	}
	out.WriteString(")\n\n#Spec\n\n")
	// Fields written beside an embedded definition are allowed, so a file
	// whose top level embeds #Spec is open; this pattern closes it, as
	// unifying a spec with #Spec does.
	out.WriteString("// A top-level field that #Spec lacks is an error.\n")
	fmt.Fprintf(&out, "[!~%q]: error(\"field not allowed: a spec has only the fields of #Spec\")\n", "^("+strings.Join(fields, "|")+")$")
	// So is every struct below it: the spec's fields are written beside
	// the embedding as well.
	closers, err := specClosers()
	if err != nil {
		return "", err
	}
	out.WriteString(closers)
	out.WriteString(body.String())
	return out.String(), nil
}

// specFields lists #Spec's regular fields, optional and required ones
// included.
func specFields() ([]string, error) {
	sc, err := LoadSchema()
	if err != nil {
		return nil, err
	}
	return structFields(sc.v.LookupPath(cue.MakePath(cue.Def("Spec"))))
}

// structFields lists v's regular fields, optional and required ones
// included, quoted for a regular expression.
func structFields(v cue.Value) ([]string, error) {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	var out []string
	for it.Next() {
		if sel := it.Selector(); sel.IsString() {
			out = append(out, regexp.QuoteMeta(sel.Unquoted()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// specClosers are the pattern constraints that close each closed struct
// below #Spec's top level (samples, limits, calibration.tolerance, ...)
// in a file that embeds #Spec, one line each.
func specClosers() (string, error) {
	sc, err := LoadSchema()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var walk func(v cue.Value, at []string) error
	walk = func(v cue.Value, at []string) error {
		it, err := v.Fields(cue.Optional(true))
		if err != nil {
			return fmt.Errorf("embedded schema: %w", err)
		}
		for it.Next() {
			sel := it.Selector()
			f := it.Value()
			// Only a struct that refuses fields it lacks (not a map with
			// a pattern of its own, nor a struct among other types).
			if !sel.IsString() || f.IncompleteKind() != cue.StructKind || f.Allows(cue.Str("spawnbench-no-such-field")) {
				continue
			}
			here := append(slices.Clip(at), sel.Unquoted())
			names, err := structFields(f)
			if err != nil {
				return err
			}
			if len(names) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s?: [!~%q]: error(\"field not allowed: %s has only the fields of its definition\")\n",
				strings.Join(here, "?: "), "^("+strings.Join(names, "|")+")$", strings.Join(here, "."))
			if err := walk(f, here); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(sc.v.LookupPath(cue.MakePath(cue.Def("Spec"))), nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

// KindNames lists the short forms of the pairs (#Kinds), sorted.
func (sc *Schema) KindNames() []string { return sc.fieldNames(cue.MakePath(cue.Def("Kinds"))) }

// PayloadNames lists the payloads (#Payloads), sorted.
func (sc *Schema) PayloadNames() []string { return sc.fieldNames(cue.MakePath(cue.Def("Payloads"))) }

// HostNames lists the hosts (#Hosts), sorted.
func (sc *Schema) HostNames() []string { return sc.fieldNames(cue.MakePath(cue.Def("Hosts"))) }

// HostsOf lists the hosts that can run payload (#Pairs), sorted.
func (sc *Schema) HostsOf(payload string) []string {
	return sc.fieldNames(cue.MakePath(cue.Def("Pairs"), cue.Str(payload)))
}

func (sc *Schema) fieldNames(p cue.Path) []string {
	var out []string
	it, err := sc.v.LookupPath(p).Fields(cue.Definitions(false))
	if err != nil {
		return nil
	}
	for it.Next() {
		out = append(out, it.Selector().Unquoted())
	}
	sort.Strings(out)
	return out
}

// PairOfKind is the payload and host of a short form.
func (sc *Schema) PairOfKind(kind string) (payload, host string, ok bool) {
	if kind == "" {
		return "", "", false
	}
	k := sc.v.LookupPath(cue.MakePath(cue.Def("Kinds"), cue.Str(kind)))
	if !k.Exists() {
		return "", "", false
	}
	payload, err1 := k.LookupPath(cue.ParsePath("payload")).String()
	host, err2 := k.LookupPath(cue.ParsePath("host")).String()
	return payload, host, err1 == nil && err2 == nil
}

// PairKind is the short form of a pair, and whether the pair exists.
func (sc *Schema) PairKind(payload, host string) (string, bool) {
	if payload == "" || host == "" {
		return "", false
	}
	v := sc.v.LookupPath(cue.MakePath(cue.Def("Pairs"), cue.Str(payload), cue.Str(host), cue.Def("kind")))
	kind, err := v.String()
	return kind, err == nil
}

// Refusal is why host cannot run payload, when a host's file says so
// (#Refused).
func (sc *Schema) Refusal(payload, host string) (string, bool) {
	s, err := sc.v.LookupPath(cue.MakePath(cue.Def("Refused"), cue.Str(payload), cue.Str(host))).String()
	return s, err == nil
}

// payloadTitle words a payload for messages ("an Emscripten build").
func (sc *Schema) payloadTitle(payload string) string {
	if s, err := sc.v.LookupPath(cue.MakePath(cue.Def("PayloadInfo"), cue.Str(payload))).String(); err == nil {
		return s
	}
	return "payload " + payload
}

// DefaultEnvironment is an environment of the kind with every default
// setting, named after the kind. `spawnbench envs` checks toolchains with
// it. A kind with a required setting (command's run) has none.
func (sc *Schema) DefaultEnvironment(kind string) (EnvironmentSpec, error) {
	payload, host, ok := sc.PairOfKind(kind)
	if !ok {
		return EnvironmentSpec{}, fmt.Errorf("unknown kind %q", kind)
	}
	def := sc.v.LookupPath(cue.MakePath(cue.Def("Environment")))
	u := def.Unify(sc.ctx.CompileString(fmt.Sprintf("{name: %q, kind: %q}", kind, kind)))
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return EnvironmentSpec{}, fmt.Errorf("kind %s has required settings: %w", kind, err)
	}
	js, err := u.MarshalJSON()
	if err != nil {
		return EnvironmentSpec{}, fmt.Errorf("kind %s: %w", kind, err)
	}
	return EnvironmentSpec{Name: kind, Payload: payload, Host: host, Kind: kind, Settings: u, Resolved: js}, nil
}
