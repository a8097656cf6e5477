package report

import (
	"slices"
	"strings"
)

// Host families, in the order reports list them. A family groups the
// environments that share a host: readers compare within a family first
// (Wasmtime's lines against each other, browsers against each other) and
// across families second.
const (
	FamilyNative     = "native"
	FamilyWasmtime   = "Wasmtime"
	FamilyJSHosts    = "JS hosts"
	FamilyEmscripten = "Emscripten"
	FamilyRawWorkers = "raw workers"
	FamilyOther      = "other"
)

// Families lists the host families in report order.
var Families = []string{FamilyNative, FamilyWasmtime, FamilyJSHosts, FamilyEmscripten, FamilyRawWorkers, FamilyOther}

// FamilyOfKind maps an environment kind to its host family: native;
// Wasmtime for the embedded host (wasi-threads*) and the CLI
// (wasmtime-*); JS hosts for @emnapi/wasi-threads in Node.js and browsers
// (wasi-threads-node, -chromium, -firefox); Emscripten (emscripten*); raw
// workers (manual*); anything else, such as the command kind, is "other".
func FamilyOfKind(kind string) string {
	switch {
	case kind == "native":
		return FamilyNative
	case kind == "wasi-threads-node", kind == "wasi-threads-chromium", kind == "wasi-threads-firefox":
		return FamilyJSHosts
	case strings.HasPrefix(kind, "wasi-threads"), strings.HasPrefix(kind, "wasmtime"):
		return FamilyWasmtime
	case strings.HasPrefix(kind, "emscripten"):
		return FamilyEmscripten
	case strings.HasPrefix(kind, "manual"):
		return FamilyRawWorkers
	}
	return FamilyOther
}

// Family is the host family of env, from its kind; an environment with no
// recorded kind (one that was skipped) is judged by its name, which for
// the shipped specs starts with its kind.
func (r *Report) Family(env string) string {
	if k := r.kinds[env]; k != "" {
		return FamilyOfKind(k)
	}
	return FamilyOfKind(env)
}

// orderByFamily sorts the environments by family, keeping the order of
// first appearance within a family.
func (r *Report) orderByFamily() {
	slices.SortStableFunc(r.Environments, func(a, b string) int {
		return slices.Index(Families, r.Family(a)) - slices.Index(Families, r.Family(b))
	})
}
