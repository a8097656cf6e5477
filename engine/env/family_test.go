package env_test

import (
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// TestLegacyFamiliesAreTheHostsOwn: every kind of the schema has a family
// from its payload and host, and where results fills an older set's rows
// by kind, it fills them with that same family and pair.
func TestLegacyFamiliesAreTheHostsOwn(t *testing.T) {
	t.Parallel()
	sc, err := spec.LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	legacy := 0
	for _, kind := range sc.KindNames() {
		payload, host, _ := sc.PairOfKind(kind)
		f := env.Family(payload, host)
		if f == "" {
			t.Errorf("%s (%s on %s) has no family", kind, payload, host)
		}
		if p, h, ok := results.PairOfKind(kind); ok {
			legacy++
			if p != payload || h != host || results.FamilyOfKind(kind) != f {
				t.Errorf("%s: results fills (%s, %s, %s), the schema and hosts say (%s, %s, %s)", kind, p, h, results.FamilyOfKind(kind), payload, host, f)
			}
		}
	}
	if legacy < 15 {
		t.Errorf("only %d legacy kinds checked", legacy)
	}
}

// TestBrowsersAreThePageHosts: the hosts that hostfacts calls browsers
// (whose processes start warm or cold, for the costs and the result
// sets' cost summaries) are exactly the hosts that open pages.
func TestBrowsersAreThePageHosts(t *testing.T) {
	t.Parallel()
	for _, h := range env.Hosts() {
		if page := env.HostForm(h) == env.FormPage; page != hostfacts.Browser(h) {
			t.Errorf("host %s: opens pages %v, hostfacts.Browser says %v", h, page, hostfacts.Browser(h))
		}
	}
	for _, h := range hostfacts.Browsers {
		if env.HostForm(h) != env.FormPage {
			t.Errorf("hostfacts.Browsers names %s, which is no host that opens pages", h)
		}
	}
}
