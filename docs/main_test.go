package docs_test

import (
	"testing"

	"spawnbench/internal/reexec"
)

// TestMain lets this test binary play the helper roles (a containment
// keeper or guardian) that the code under test starts.
func TestMain(m *testing.M) { reexec.RunTests(m) }
