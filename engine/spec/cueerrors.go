package spec

// The words of a refused spec: CUE's errors turned into one line per
// field that names the value given, what the field wants and, for a name
// the schema does not know, the nearest names it does.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
)

// cueInputError turns CUE's errors into one message that keeps each
// error's position in the user's files and its field path. user, when
// given, places an error that has no position in the user's files at the
// nearest field the user wrote.
func cueInputError(path string, files map[string]string, what string, err error, user ...cue.Value) error {
	type line struct{ where, field, msg string }
	var all []line
	for _, e := range cueerrors.Errors(err) {
		field := strings.Join(specPath(e.Path()), ".")
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
		if where == "" && len(user) > 0 {
			where = nearestPosition(path, files, user[0], specPath(e.Path()))
		}
		if where == "" {
			where = path
		}
		all = append(all, line{where, field, msg})
	}
	// A field with a default fails in each arm of "default | constraint":
	// the default arm's conflict says nothing the constraint's error does
	// not, so it is dropped when the field (or a field holding it) has
	// another error. A field whose only errors are conflicts with each
	// allowed value gets one line naming them.
	real := map[string]bool{}
	conflicts := map[string][][2]string{}
	for _, l := range all {
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
		if isNoise(msg) {
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

var noise = regexp.MustCompile(`^(\d+ errors in empty disjunction|conflicting values |incompatible list lengths|invalid left-hand value|invalid operands )`)

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
		var sels []cue.Selector
		for _, part := range p[:n] {
			if i, err := strconv.Atoi(part); err == nil {
				sels = append(sels, cue.Index(i))
			} else {
				sels = append(sels, cue.Str(part))
			}
		}
		v := user.LookupPath(cue.MakePath(sels...))
		if !v.Exists() {
			continue
		}
		if s, ok := displayPos(path, files, v.Pos()); ok {
			return s
		}
	}
	return ""
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
