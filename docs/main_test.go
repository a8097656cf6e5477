package docs_test

import (
	"os"
	"testing"

	"spawnbench/internal/reexec"
)

// TestMain lets this test binary play spawnbench's helper roles (a
// containment keeper or guardian, a namespace's holder), which the code
// under test starts as copies of the running binary.
func TestMain(m *testing.M) {
	reexec.Dispatch()
	os.Exit(m.Run())
}
