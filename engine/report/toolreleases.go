package report

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"

	"spawnbench/engine/results"
)

// Beside the Wasmtime CLI's releases (releases.go), the releases of the
// tools a toolchain root brings (engine/env/root.go: Emscripten, Node.js,
// Firefox) are a dimension of their own: two environments that differ only
// in where their tools come from (their root, and the commands and flags
// that follow from it) are one environment in two releases, and each of
// the newer's figures is divided by the older's. The releases are the
// versions each run recorded for the environment's tools, never read
// from its name; what pairs two environments is their resolved settings.

// ReleaseChange is one tool whose release differs between the two
// environments of a ToolReleaseRow.
type ReleaseChange struct {
	Tool  string `json:"tool"`
	Older string `json:"older"`
	Newer string `json:"newer"`
}

// ToolReleaseRow is one (mode, n) of an environment in its newer
// releases beside the same environment in the older ones.
type ToolReleaseRow struct {
	Environment string          `json:"environment"`
	Older       string          `json:"older_environment"`
	Payload     string          `json:"payload"`
	Host        string          `json:"host"`
	Changes     []ReleaseChange `json:"changes"`
	Mode        string          `json:"mode"`
	N           int32           `json:"n"`
	// Estimate is the newer's figure over processes, OlderEstimate the
	// older's; Ratio divides the first by the second, with the
	// Yuen–Welch interval over both cells' processes.
	Estimate      Estimate  `json:"estimate"`
	OlderEstimate Estimate  `json:"older_estimate"`
	Ratio         Ratio     `json:"ratio"`
	Judgement     Judgement `json:"noise"`
}

// releaseTools are the tools whose releases pair environments, each found
// by its version words in a recorded toolchain.
var releaseTools = []struct {
	name    string
	version *regexp.Regexp
}{
	{"Emscripten", regexp.MustCompile(`emcc \(Emscripten [^)]*\) (\d+(?:\.\d+)+)`)},
	{"Node.js", regexp.MustCompile(`Node\.js v(\d+(?:\.\d+)+)`)},
	{"Firefox", regexp.MustCompile(`Mozilla Firefox (\d+(?:\.\d+)+(?:esr)?)`)},
}

// releaseSettings are the settings that follow from an environment's
// release (its root and the tools' commands and flags that go with it) or
// from how it is sampled: two environments equal in all else are one
// environment in two releases.
var releaseSettings = []string{"name", "root", "emcc", "node", "firefox", "node_required_flags", "node_flags",
	"against", "n", "min", "processes"}

// resolvedSettings is each environment's resolved settings, from the
// set's invocations (the last that names it wins), less releaseSettings.
func resolvedSettings(p *results.Provenance) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, inv := range p.Invocations {
		var spec struct {
			Environments []map[string]any `json:"environments"`
		}
		if len(inv.Resolved) == 0 || json.Unmarshal(inv.Resolved, &spec) != nil {
			continue
		}
		for _, e := range spec.Environments {
			name, _ := e["name"].(string)
			s := maps.Clone(e)
			for _, k := range releaseSettings {
				delete(s, k)
			}
			out[name] = s
		}
	}
	return out
}

// toolReleasesOf pairs every two environments that are one environment in
// two releases of Emscripten, Node.js or Firefox, and sets the newer's
// cells beside the older's, all-spawns view, in mode, n and environment
// order; nil when no two pair.
func toolReleasesOf(r *Report) []ToolReleaseRow {
	recorded := map[string]string{}
	settings := map[string]map[string]any{}
	for _, src := range r.Sources {
		maps.Copy(recorded, toolchains(&src.Provenance))
		maps.Copy(settings, resolvedSettings(&src.Provenance))
	}
	type pair struct {
		newer, older string
		changes      []ReleaseChange
	}
	var pairs []pair
	for i, a := range r.Environments {
		for _, b := range r.Environments[i+1:] {
			if r.Skipped[a] != "" || r.Skipped[b] != "" || settings[a] == nil || !reflect.DeepEqual(settings[a], settings[b]) {
				continue
			}
			pa, ha := r.pairOf(a)
			pb, hb := r.pairOf(b)
			if pa == "" || pa != pb || ha != hb {
				continue
			}
			var changes []ReleaseChange
			newer, older := a, b
			for _, tool := range releaseTools {
				va, vb := tool.version.FindStringSubmatch(recorded[a]), tool.version.FindStringSubmatch(recorded[b])
				if va == nil || vb == nil || va[1] == vb[1] {
					continue
				}
				if len(changes) == 0 && slices.Compare(parseVersion(trimESR(va[1])), parseVersion(trimESR(vb[1]))) < 0 {
					newer, older = b, a
				}
				changes = append(changes, ReleaseChange{Tool: tool.name, Older: vb[1], Newer: va[1]})
			}
			if len(changes) == 0 {
				continue
			}
			if newer != a {
				for k := range changes {
					changes[k].Older, changes[k].Newer = changes[k].Newer, changes[k].Older
				}
			}
			pairs = append(pairs, pair{newer, older, changes})
		}
	}
	var rows []ToolReleaseRow
	for _, p := range pairs {
		payload, host := r.pairOf(p.newer)
		for _, q := range r.cellRatios(p.newer, p.older) {
			c, o := r.Cell(p.newer, q.Mode, q.Column), r.Cell(p.older, q.Mode, q.Column)
			if q.Column.Last != 0 {
				continue
			}
			rows = append(rows, ToolReleaseRow{
				Environment: p.newer, Older: p.older, Payload: payload, Host: host, Changes: p.changes,
				Mode: q.Mode, N: q.Column.N, Estimate: c.Stats.Estimate, OlderEstimate: o.Stats.Estimate,
				Ratio: q, Judgement: c.Judgement,
			})
		}
	}
	slices.SortStableFunc(rows, func(a, b ToolReleaseRow) int {
		return cmp.Or(
			cmp.Compare(slices.Index(r.Modes, a.Mode), slices.Index(r.Modes, b.Mode)),
			cmp.Compare(a.N, b.N),
			cmp.Compare(slices.Index(r.Environments, a.Environment), slices.Index(r.Environments, b.Environment)),
			cmp.Compare(slices.Index(r.Environments, a.Older), slices.Index(r.Environments, b.Older)))
	})
	return rows
}

// trimESR drops Firefox's "esr" suffix, for ordering by number.
func trimESR(v string) string {
	if len(v) > 3 && v[len(v)-3:] == "esr" {
		return v[:len(v)-3]
	}
	return v
}
