package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"

	"spawnbench/engine/results"
	"spawnbench/internal/intruder"
)

// TestOtherUsersCannotForgeEndOrSteerABrowserRun: issue 37. During a run
// of warm Chromium and Firefox pages, another local user (nobody) polls
// the machine's loopback listeners, posts a forged exit status and
// forged spawn lines to every one of the run's, and asks each, and the
// warm Firefox's remote agent, for a WebDriver BiDi session. Nothing of
// theirs is accepted, they get no session, every page is ok with its own
// spawns, and the refused requests are counted in runs.parquet.
//
// SPAWNBENCH_INTRUSION_SPEC, when set, replaces the spec's environments,
// n and samples (a longer experiment than the test's).
func TestOtherUsersCannotForgeEndOrSteerABrowserRun(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	if why := intruder.Skip(); why != "" {
		t.Skip(why)
	}
	for _, b := range []string{"chromium", "firefox-esr"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed (apt-get install -y %s)", b, b)
		}
	}
	body := `environments: [{name: "chromium", kind: "manual"}, {name: "firefox", kind: "manual-firefox"}]
n: [50]
samples: {min: 1, processes: 2}
`
	if s := os.Getenv("SPAWNBENCH_INTRUSION_SPEC"); s != "" {
		body = s
	}
	dir := t.TempDir()
	p := writeSpec(t, dir, body)
	out := filepath.Join(dir, "out")
	// The intruder's directory: nobody runs its copy of this test binary
	// there and reads the watcher's lists of the run's sockets.
	watched, err := intruder.Dir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(watched)
	intr, err := intruder.Command(watched, "poll", watched)
	if err != nil {
		t.Fatal(err)
	}
	var got intruder.Attacks
	stopIntruder, err := intruder.Run(intr, &got)
	if err != nil {
		t.Fatal(err)
	}

	// Expected times from the committed reference set: no probe of this
	// machine, whose pages are no run's.
	costs, err := filepath.Abs(filepath.Join("..", "..", "results", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	run := exec.Command(binary(t), "run", p, "-o", out, "--costs", costs)
	run.Dir = dir
	run.Env = sharedCache()
	stderr := &fulltest.LockedBuffer{}
	run.Stderr = stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, stopWatch := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		intruder.Watch(ctx, run.Process.Pid, watched)
		close(watching)
	}()
	runErr := run.Wait()
	stopWatch()
	<-watching
	if err := stopIntruder(); err != nil {
		t.Fatal(err)
	}
	t.Logf("intruder: %+v", got)
	if runErr != nil {
		t.Fatalf("run: %v\n%s", runErr, stderr.String())
	}

	if got.Accepted != 0 || got.Sessions != 0 {
		t.Errorf("%d of nobody's %d forged posts accepted, %d of %d session tries got a session; want none", got.Accepted, got.Posts, got.Sessions, got.SessionTries)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.Last()
	if inv.BrowserIsolation == "" || !strings.Contains(stderr.String(), "browsers kept from other users by: "+inv.BrowserIsolation) {
		t.Errorf("browser isolation %q not recorded or not said: %s", inv.BrowserIsolation, stderr.String())
	}
	// Chromium's pages are on the machine's loopback, as are Firefox's
	// without a namespace: the intruder must have found them.
	onLoopback := inv.BrowserIsolation != "netns" || slices.ContainsFunc(set.Runs, func(r results.ProcessRun) bool { return r.Host == "chromium" })
	if onLoopback && (got.Listeners == 0 || got.Refused == 0) {
		t.Fatalf("nobody reached none of the run's page servers (%+v): the test saw no attack to judge", got)
	}
	if got.Agents == 0 {
		t.Errorf("the watcher found no remote agent of the run's Firefox: the session tries were not put to it")
	}
	if inv.BrowserIsolation == "netns" && got.AgentsSeen > 0 {
		t.Errorf("nobody saw %d of the warm Firefox's remote agents among the machine's listeners, though they ran in a namespace of the run's own", got.AgentsSeen)
	}
	var refused int64
	for _, r := range set.Runs {
		what := fmt.Sprintf("%s n=%d process %d", r.Environment, r.N, r.Process)
		if r.Status != results.StatusOK || r.Samples != r.N || r.TypicalSpawnNS == nil || *r.TypicalSpawnNS <= 0 {
			t.Errorf("%s: %s with %d samples (typical %v), want ok with its own %d: %s", what, r.Status, r.Samples, r.TypicalSpawnNS, r.N, r.Error)
		}
		if r.RefusedRequests == nil {
			t.Errorf("%s: no count of refused requests", what)
			continue
		}
		refused += *r.RefusedRequests
		if *r.RefusedRequests > 0 && !strings.Contains(r.Error, "refused a request without the page's secret") {
			t.Errorf("%s: %d refused requests, not described in its error column %q", what, *r.RefusedRequests, r.Error)
		}
	}
	// Every request refused the intruder is in some page's record, and
	// nothing else was refused (not the browsers' own requests).
	if want := int64(got.Refused + got.SessionRefused); refused != want {
		t.Errorf("runs.parquet counts %d refused requests; the intruder was refused %d (%d posts, %d session handshakes)", refused, want, got.Refused, got.SessionRefused)
	}
	if refused > 0 && !strings.Contains(stderr.String(), "requests without the page's secret") {
		t.Errorf("the run did not warn of the refused requests: %s", stderr.String())
	}
	t.Logf("runs.parquet: %d processes, all ok: %v; %s refused requests in all; browser isolation %s", len(set.Runs), !t.Failed(), strconv.FormatInt(refused, 10), inv.BrowserIsolation)
}
