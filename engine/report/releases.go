package report

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// releaseHost is the host whose releases a report sets side by side: the
// Wasmtime CLI, which spawnbench measures in several releases
// (engine/env/wasmtime-cli.versions).
const releaseHost = "wasmtime-cli"

// ReleaseRow is one Wasmtime CLI environment's figure in one (mode, n),
// with the release it ran: the version the run recorded for the
// environment's toolchain, never a guess from its name.
type ReleaseRow struct {
	Environment string `json:"environment"`
	// Payload is what the CLI ran: releases compare on one payload.
	Payload string `json:"payload"`
	// Release is the release line (the major version, "46") and Version
	// the CLI's own ("46.0.1").
	Release string `json:"release"`
	Version string `json:"version"`
	Mode    string `json:"mode"`
	N       int32  `json:"n"`
	// Estimate is the cell's figure over processes (all spawns).
	Estimate Estimate `json:"estimate"`
	// Ratio divides it by the baseline's in the same (mode, n); nil
	// without a measured baseline.
	Ratio     *Ratio    `json:"ratio,omitempty"`
	Judgement Judgement `json:"noise"`

	VersionNumbers []int `json:"-"`
}

// wasmtimeVersion finds the CLI's version in a recorded toolchain: the
// Wasmtime CLI's part is its --version line, "wasmtime 46.0.1 (823d1b8f2
// 2026-06-24)", after the payload's tools.
var wasmtimeVersion = regexp.MustCompile(`(?:^|; )wasmtime (\d+(?:\.\d+)*)`)

// parseVersion splits "46.0.1" into its numbers, so 36 sorts before 42.
func parseVersion(v string) []int {
	var out []int
	for _, part := range strings.Split(v, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// releasesOf gathers, when the report holds environments of the Wasmtime
// CLI host in two or more releases, one row per such environment, mode
// and n (all-spawns view), ordered by mode, n, payload and then release
// by version number; nil otherwise.
func releasesOf(r *Report) []ReleaseRow {
	recorded := map[string]string{}
	for _, src := range r.Sources {
		for env, v := range toolchains(&src.Provenance) {
			recorded[env] = v
		}
	}
	versions, payloads := map[string]string{}, map[string]string{}
	distinct := map[string]bool{}
	for _, env := range r.Environments {
		payload, host := r.pairOf(env)
		if r.Skipped[env] != "" || host != releaseHost {
			continue
		}
		payloads[env] = payload
		m := wasmtimeVersion.FindStringSubmatch(recorded[env])
		if m == nil || parseVersion(m[1]) == nil {
			continue
		}
		versions[env] = m[1]
		distinct[m[1]] = true
	}
	if len(distinct) < 2 {
		return nil
	}
	var rows []ReleaseRow
	for _, c := range r.Cells {
		v, ok := versions[c.Environment]
		if !ok || c.Last != 0 || c.Stats == nil {
			continue
		}
		major, _, _ := strings.Cut(v, ".")
		rows = append(rows, ReleaseRow{
			Environment: c.Environment, Payload: payloads[c.Environment], Release: major, Version: v, Mode: c.Mode, N: c.N,
			Estimate: c.Stats.Estimate, Ratio: r.Ratio(c.Environment, c.Mode, c.Column), Judgement: c.Judgement,
			VersionNumbers: parseVersion(v),
		})
	}
	slices.SortStableFunc(rows, func(a, b ReleaseRow) int {
		return cmp.Or(
			cmp.Compare(slices.Index(r.Modes, a.Mode), slices.Index(r.Modes, b.Mode)),
			cmp.Compare(a.N, b.N),
			cmp.Compare(a.Payload, b.Payload),
			slices.Compare(a.VersionNumbers, b.VersionNumbers),
			cmp.Compare(a.Environment, b.Environment))
	})
	return rows
}

// pairOf is env's payload and host, as its rows recorded them.
func (r *Report) pairOf(env string) (payload, host string) {
	for k, g := range r.Groups {
		if k.Env == env && g.host != "" {
			return g.payload, g.host
		}
	}
	return "", ""
}
