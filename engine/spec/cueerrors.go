package spec

// The words of a refused spec: CUE's errors turned into one line per
// field that names the value given, what the field wants and, for a name
// the schema does not know, the nearest names it does.

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"spawnbench/engine/inputerr"
)

// cueInputError turns CUE's errors into one message that keeps each
// error's position in the user's files and its field path. values, when
// given, are the user's own value, which places an error that has no
// position in the user's files at the nearest field the user wrote and
// holds the value given, and the spec as the schema unified it, which
// holds the fields allowed where one is not.
func cueInputError(path string, files map[string]string, what string, err error, values ...cue.Value) error {
	type line struct {
		where, field, msg string
		at                []string
	}
	var user, unified cue.Value
	if len(values) > 0 {
		user = values[0]
	}
	if len(values) > 1 {
		unified = values[1]
	}
	var all []line
	for _, e := range cueerrors.Errors(err) {
		at := specPath(e.Path())
		field := strings.Join(at, ".")
		msg := e.Error()
		// e.Error() leads with the path as CUE spells it.
		msg = strings.TrimPrefix(msg, strings.Join(e.Path(), ".")+": ")
		msg = strings.ReplaceAll(msg, "#Spec.", "")
		// The loader's name for the spec (buildUser) is no file the user
		// has: messages name the spec itself.
		for name, shown := range files {
			msg = strings.ReplaceAll(msg, name, shown)
		}
		where := ""
		for _, p := range cueerrors.Positions(e) {
			if s, ok := displayPos(path, files, p); ok {
				where = s
				break
			}
		}
		if where == "" && user.Exists() {
			where = nearestPosition(path, files, user, at)
		}
		if where == "" {
			where = path
		}
		all = append(all, line{where, field, plainer(msg, at, unified), at})
	}
	// A value of the wrong type fails in each arm of "default |
	// constraint" with a conflict that names both types: one line says
	// what was given and what the field wants, and the field's other
	// errors go.
	mismatches := map[string][]string{}
	var order []line
	for _, l := range all {
		if mismatch.MatchString(l.msg) {
			if mismatches[l.field] == nil {
				order = append(order, l)
			}
			mismatches[l.field] = append(mismatches[l.field], l.msg)
		}
	}
	typed := map[string]string{}
	for _, l := range order {
		typed[l.field] = wrongType(l.at, lookup(user, l.at), mismatches[l.field])
	}
	// A field with a default fails in each arm of "default | constraint":
	// the default arm's conflict says nothing the constraint's error does
	// not, so it is dropped when the field (or a field holding it) has
	// another error. A field whose only errors are conflicts with each
	// allowed value gets one line naming them.
	real := map[string]bool{}
	conflicts := map[string][][2]string{}
	for _, l := range all {
		if typed[l.field] != "" {
			real[l.field] = true
			continue
		}
		if m := conflict.FindStringSubmatch(l.msg); m != nil {
			conflicts[l.field] = append(conflicts[l.field], [2]string{m[1], m[2]})
		} else if !isNoise(l.msg) {
			real[l.field] = true
		}
	}
	// hasRealChild: an element of the field has an error of its own, so
	// the field's list-length conflict with an empty alternative is noise.
	hasRealChild := func(field string) bool {
		for f := range real {
			if strings.HasPrefix(f, field+".") {
				return true
			}
		}
		return false
	}
	covered := func(field string) bool {
		for f := field; ; {
			if real[f] {
				return true
			}
			i := strings.LastIndexByte(f, '.')
			if i < 0 {
				return false
			}
			f = f[:i]
		}
	}
	var lines []string
	said := map[string]bool{}
	for _, l := range all {
		msg := l.msg
		if t := typed[l.field]; t != "" {
			if said[l.field] {
				continue
			}
			msg, said[l.field] = t, true
		} else if isNoise(msg) {
			if covered(l.field) || said[l.field] {
				continue
			}
			if strings.HasPrefix(msg, "incompatible list lengths (0 and") {
				if hasRealChild(l.field) {
					continue
				}
				msg = "is empty; give at least one value"
			} else if one, ok := notAllowed(conflicts[l.field]); ok {
				msg, said[l.field] = one, true
			} else if !conflict.MatchString(msg) {
				continue
			}
		}
		if l.field != "" {
			lines = append(lines, fmt.Sprintf("  %s: %s: %s", l.where, l.field, msg))
		} else {
			lines = append(lines, fmt.Sprintf("  %s: %s", l.where, msg))
		}
	}
	if len(lines) == 0 {
		// Every error was one the rules above drop as noise (a conflict of
		// two list lengths the user wrote, say): give them as CUE says.
		for _, l := range all {
			msg := l.msg
			if m := listLengths.FindStringSubmatch(msg); m != nil {
				msg = fmt.Sprintf("lists of different lengths (%s and %s) are unified; give one list", m[1], m[2])
			}
			if l.field != "" {
				lines = append(lines, fmt.Sprintf("  %s: %s: %s", l.where, l.field, msg))
			} else {
				lines = append(lines, fmt.Sprintf("  %s: %s", l.where, msg))
			}
		}
	}
	sort.Strings(lines)
	lines = dedupe(lines)
	if len(lines) > 8 {
		lines = append(lines[:8], fmt.Sprintf("  ... and %d more", len(lines)-8))
	}
	return inputErrorf("spec %s %s:\n%s", path, what, strings.Join(lines, "\n"))
}

// noise are CUE's errors that only echo another: a disjunction's count,
// a default's conflict, a comprehension that cannot use a value of the
// wrong type.
var noise = regexp.MustCompile(`^(\d+ errors in empty disjunction|conflicting values |incompatible list lengths|invalid left-hand value|invalid operands |cannot use .* \(type \w+\) as type \w+ in )`)

func isNoise(msg string) bool { return noise.MatchString(msg) }

var listLengths = regexp.MustCompile(`^incompatible list lengths \((\d+) and (\d+)\)`)

var conflict = regexp.MustCompile(`^conflicting values (.+) and (.+)$`)

// notAllowed words a field's conflicts with two or more allowed values:
// the value common to every conflict is the one given.
func notAllowed(pairs [][2]string) (string, bool) {
	if len(pairs) < 2 {
		return "", false
	}
	for _, given := range pairs[0] {
		var allowed []string
		for _, p := range pairs {
			switch given {
			case p[0]:
				allowed = append(allowed, p[1])
			case p[1]:
				allowed = append(allowed, p[0])
			}
		}
		if len(allowed) == len(pairs) {
			sort.Strings(allowed)
			return fmt.Sprintf("%s is not allowed here; give one of %s", given, strings.Join(allowed, ", ")), true
		}
	}
	return "", false
}

// specPath drops the schema's own #Spec from a CUE error path.
func specPath(p []string) []string {
	if len(p) > 0 && p[0] == "#Spec" {
		return p[1:]
	}
	return p
}

// nearestPosition is "file:line:column" of the deepest field along p that
// the user wrote.
func nearestPosition(path string, files map[string]string, user cue.Value, p []string) string {
	for n := len(p); n > 0; n-- {
		v := lookup(user, p[:n])
		if !v.Exists() {
			continue
		}
		if s, ok := displayPos(path, files, v.Pos()); ok {
			return s
		}
	}
	return ""
}

// lookup is v's value at the error path p (list indices as numbers); it
// does not exist when v does not or holds nothing there.
func lookup(v cue.Value, p []string) cue.Value {
	if !v.Exists() {
		return v
	}
	var sels []cue.Selector
	for _, part := range p {
		if i, err := strconv.Atoi(part); err == nil {
			sels = append(sels, cue.Index(i))
		} else {
			sels = append(sels, cue.Str(part))
		}
	}
	return v.LookupPath(cue.MakePath(sels...))
}

var (
	// mismatch is a conflict of two values of different types.
	mismatch = regexp.MustCompile(`^conflicting values (.+) \(mismatched types (\w+) and (\w+)\)$`)
	// notDuration is a string that Go's time.ParseDuration refuses.
	notDuration = regexp.MustCompile(`^invalid value (.+) \(does not satisfy time\.Duration\)`)
)

// plainer words two of CUE's errors as a newcomer can act on them: a
// field the schema does not have gets the nearest fields it does (from
// unified, the spec as the schema unified it), and a string that is no
// duration says what one looks like.
func plainer(msg string, at []string, unified cue.Value) string {
	if m := notDuration.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s is not a duration; give a number and a unit (ns, us, ms, s, m, h), e.g. %s", m[1], example(at, `"10ms"`))
	}
	if msg != "field not allowed" || len(at) == 0 || !unified.Exists() {
		return msg
	}
	given := at[len(at)-1]
	parent := at[:len(at)-1]
	allowed := fieldsAt(unified, parent)
	allowed = slices.DeleteFunc(allowed, func(f string) bool { return f == given })
	if guess := inputerr.DidYouMean(given, allowed, "%s"); guess != "" {
		return msg + "; " + guess
	}
	// A field of a struct here, written one level too high (timeout:
	// for limits: timeout:).
	for _, f := range allowed {
		if slices.Contains(fieldsAt(unified, append(slices.Clip(parent), f)), given) {
			return fmt.Sprintf("%s; did you mean %s?", msg, strings.Join(append(slices.Clip(parent), f, given), "."))
		}
	}
	if len(allowed) > 0 {
		sort.Strings(allowed)
		return msg + "; the fields here are " + strings.Join(allowed, ", ")
	}
	return msg
}

// fieldsAt are the names of the fields v has at the error path at,
// optional ones included.
func fieldsAt(v cue.Value, at []string) []string {
	var out []string
	it, err := lookup(v, at).Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	for it.Next() {
		if sel := it.Selector(); sel.IsString() {
			out = append(out, sel.Unquoted())
		}
	}
	return out
}

// wrongType words a value of the wrong type from the field's conflicts
// (msgs, each matching mismatch): the value given (v, the user's, when
// it is theirs to see), what it is, and what to give instead, with an
// example made from it where one can be.
func wrongType(at []string, v cue.Value, msgs []string) string {
	given, givenType := "", ""
	if v.Exists() && v.IsConcrete() {
		if text := fmt.Sprint(v); !strings.Contains(text, "\n") {
			given = text
		}
	}
	var wanted, defaults []string
	duration := false
	for _, msg := range msgs {
		m := mismatch.FindStringSubmatch(msg)
		body, t1, t2 := m[1], m[2], m[3]
		var a, b string
		switch {
		case given != "" && strings.HasPrefix(body, given+" and "):
			a, b = given, strings.TrimPrefix(body, given+" and ")
		case given != "" && strings.HasSuffix(body, " and "+given):
			a, b, t1, t2 = given, strings.TrimSuffix(body, " and "+given), t2, t1
		default:
			a, b, _ = strings.Cut(body, " and ")
			if given == "" {
				given = a
			}
			if a != given {
				a, b, t1, t2 = b, a, t2, t1
			}
		}
		givenType = t1
		if !slices.Contains(wanted, t2) {
			wanted = append(wanted, t2)
		}
		switch {
		case strings.Contains(b, "time.Duration") || isDuration(b):
			duration = true
		case !strings.ContainsAny(b, "()") && b != t2:
			defaults = append(defaults, b) // a default of the wanted type
		}
	}
	is := map[string]string{"int": "a number", "float": "a number", "number": "a number", "string": "a string", "bool": "a boolean",
		"struct": "a struct", "list": "a list", "null": "null"}[givenType]
	if is == "" {
		is = "of type " + givenType
	}
	what := given + " is " + is
	if givenType == "float" && slices.Contains(wanted, "int") {
		what = given + " is not an integer"
	}
	var give string
	switch want := wanted[0]; {
	case duration:
		n := given
		if givenType != "int" && givenType != "float" {
			n = "10"
		}
		give = fmt.Sprintf("give a duration string with its unit, e.g. %s or %q", example(at, fmt.Sprintf("%q", n+"ms")), n+"s")
	case want == "int" || want == "float" || want == "number":
		kind := "a whole number"
		if want != "int" {
			kind = "a number"
		}
		give = "give " + kind + ", e.g. " + example(at, numberLike(given, want, defaults))
	case want == "string":
		text := given
		if givenType != "string" {
			text = strconv.Quote(given)
		}
		give = "give a string in quotes, e.g. " + example(at, text)
	case want == "bool":
		b := "true"
		if given == "0" || given == `"false"` {
			b = "false"
		}
		give = "give true or false, e.g. " + example(at, b)
	case want == "list":
		give = "give a list, e.g. " + example(at, "["+given+"]")
	default:
		give = "give " + map[string]string{"struct": "a struct of its fields, { ... }", "null": "null"}[want]
		if give == "give " {
			give = "give a value of type " + want
		}
	}
	return what + "; " + give
}

// isDuration: the CUE literal s is a string Go reads as a duration with
// a unit (a default such as "120s").
func isDuration(s string) bool {
	text, err := strconv.Unquote(s)
	if err != nil {
		return false
	}
	_, err = time.ParseDuration(text)
	return err == nil && strings.ContainsAny(text, "hmsun")
}

// numberLike is an example number of type want close to what was given:
// a fraction rounded, a number in quotes unquoted, else the field's
// default, else 1.
func numberLike(given, want string, defaults []string) string {
	if f, err := strconv.ParseFloat(strings.Trim(given, `"`), 64); err == nil {
		if want == "int" {
			return strconv.FormatInt(int64(math.Round(f)), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if len(defaults) > 0 {
		return defaults[0]
	}
	return "1"
}

// example is "field: value" for the field at the error path at; an
// element of a list is shown as the list, "n: [2]".
func example(at []string, value string) string {
	if len(at) == 0 {
		return value
	}
	name := at[len(at)-1]
	if _, err := strconv.Atoi(name); err == nil && len(at) > 1 {
		name, value = at[len(at)-2], "["+value+"]"
	}
	return name + ": " + value
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

// guess is "did you mean X? " for the names of known nearest to given,
// to lead a list of them, or "".
func guess(given string, known []string) string {
	if g := inputerr.DidYouMean(given, known, "%q"); g != "" {
		return g + " "
	}
	return ""
}

// guessEnv is guess for an --env that matched nothing: the names nearest
// a name, or the pattern a name is the start of ('wasmtime*').
func guessEnv(pattern string, names []string) string {
	if strings.ContainsAny(pattern, "*?[\\") {
		return ""
	}
	if g := guess(pattern, names); g != "" {
		return g
	}
	for _, n := range names {
		if strings.HasPrefix(n, pattern) {
			return fmt.Sprintf("did you mean '%s*'? ", pattern)
		}
	}
	return ""
}
