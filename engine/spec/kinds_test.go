package spec_test

import (
	"slices"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// TestEveryKindHasGoAndCUE: a kind registered in Go has a CUE definition
// and the reverse, and each kind's default settings decode into its Go
// settings struct.
func TestEveryKindHasGoAndCUE(t *testing.T) {
	sc, err := spec.LoadSchema()
	if err != nil {
		t.Fatal(err)
	}
	var goKinds []string
	for _, k := range env.Kinds() {
		goKinds = append(goKinds, k.Name)
	}
	cueKinds := sc.KindNames()
	for _, k := range goKinds {
		if !slices.Contains(cueKinds, k) {
			t.Errorf("kind %s is registered in Go (engine/env) but has no definition in engine/spec/schema", k)
		}
	}
	for _, k := range cueKinds {
		if !slices.Contains(goKinds, k) {
			t.Errorf("kind %s is defined in engine/spec/schema but not registered in Go (engine/env)", k)
			continue
		}
		es, err := sc.DefaultEnvironment(k)
		if err != nil {
			continue // a kind with required settings (command)
		}
		e, err := env.New(es.Kind, es.Name, es.Settings)
		if err != nil || e.Name() != k || e.Kind() != k {
			t.Errorf("kind %s: New from its defaults: %v, %v", k, e, err)
		}
	}
}
