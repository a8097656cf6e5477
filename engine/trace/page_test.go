package trace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/browser"
	"spawnbench/engine/hostfacts"
	"spawnbench/engine/proc"
	"spawnbench/engine/protocol"
	"spawnbench/internal/fulltest"
)

// wakePage's main thread wakes a worker blocked in Atomics.wait 100
// times, reading its clock just before each Atomics.notify; the worker
// reads its own as soon as it runs and puts it on the page's time line
// as manual/spawn.mjs does. The page prints "#w" lines (the two
// readings, ns on the page's clock) and the "#sync" reading
// manual/index.html prints.
var wakePage = map[string]string{
	"index.html": `<!doctype html>
<script>
const cell = new Int32Array(new SharedArrayBuffer(8));
const worker = new Worker("worker.js");
const calls = [];
worker.onmessage = (e) => {
  e.data.forEach(([origin, now], i) => spawnbench.out("#w " + calls[i] + " " + Math.round((origin - performance.timeOrigin + now) * 1e6)));
  const now = Math.round(performance.now() * 1e6);
  const o = performance.timeOrigin, ms = Math.floor(o);
  spawnbench.out("#sync " + now + " " + (BigInt(ms) * 1000000n + BigInt(Math.round((o - ms) * 1e6)) + BigInt(now)) + " " + now);
  spawnbench.exit(0);
};
worker.postMessage(cell.buffer);
(async () => {
  for (let i = 1; i <= 100; i++) {
    // The worker's start needs this thread's event loop: poll by tasks.
    while (Atomics.load(cell, 1) !== i) await new Promise((r) => setTimeout(r, 0));
    // Let it fall asleep in the kernel.
    const s = performance.now();
    while (performance.now() - s < 1) {}
    calls.push(Math.round(performance.now() * 1e6));
    Atomics.store(cell, 0, i);
    Atomics.notify(cell, 0);
  }
})();
</script>`,
	"worker.js": `onmessage = (e) => {
  const cell = new Int32Array(e.data);
  const out = [];
  for (let i = 1; i <= 100; i++) {
    Atomics.store(cell, 1, i);
    Atomics.wait(cell, 0, i - 1);
    const now = performance.now();
    out.push([performance.timeOrigin, now]);
  }
  postMessage(out);
};`,
}

// Chromium's page clock, put on CLOCK_MONOTONIC through its wall clock
// (performance.timeOrigin + now(), engine/run's alignClock), lines up with
// the kernel's: in a followed renderer (Session.Follow), the kernel's
// switch-in of a worker woken by Atomics.notify comes after the page's
// reading before the notify and before the worker's first reading after
// it, in at least 95 of 100 wake-ups, within twice the page's step (its
// readings' and its time origin's coarsening) and the alignment's error.
// The two gaps are the wake-up's and JavaScript's own work, some µs to
// tens of µs each, so a clock off by more than that fails; Chromium's
// spawns themselves, milliseconds before and after their new task, could
// not show it.
func TestPageClockLinesUpWithTheKernel(t *testing.T) {
	fulltest.Only(t, "opens a page in Chromium and traces its renderer")
	if _, err := exec.LookPath(browser.DefaultChromium); err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
	tr := needTracer(t)
	dir := t.TempDir()
	for name, text := range wakePage {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := tr.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(proc.WithFollowHook(context.Background(), s.Follow), time.Minute)
	defer cancel()
	var stdout strings.Builder
	hostBefore := HostReading()
	out, err := browser.Run(ctx, browser.Page{Dir: dir, Path: "index.html", Stdout: &stdout})
	hostAfter := HostReading()
	if err != nil || out.ExitCode != 0 || out.TimedOut {
		t.Fatalf("the page: %v, exit %d, timed out %v: %s", err, out.ExitCode, out.TimedOut, out.Stderr)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "tracing_on"), []byte("0"), 0); err != nil {
		t.Fatal(err)
	}
	// Every switch-in of the worker, which End's Trace does not keep.
	evs, _, _, err := s.read()
	if err != nil {
		t.Fatal(err)
	}
	got := build(evs, nil, s.members)
	worker := 0
	for _, task := range got.Tasks {
		if task.Parent == s.spawner {
			worker = task.TID // the page's first thread: its worker's
			break
		}
	}
	var switchIns []int64
	for _, e := range evs {
		if e.kind == evSwitch && worker != 0 && e.pid == worker {
			switchIns = append(switchIns, e.ts)
		}
	}

	lines := protocol.NewCollector(-1)
	_, _ = lines.Write([]byte(stdout.String()))
	lines.Close()
	sync := lines.Sync()
	if sync == nil {
		t.Fatalf("the page printed no #sync reading:\n%s", stdout.String())
	}
	clock, ok := Align(Reading{Before: sync.BeforeNS, At: sync.RealtimeNS, After: sync.AfterNS}, hostBefore, hostAfter)
	if !ok {
		t.Skip("CLOCK_REALTIME was set during the page")
	}
	step := int64(hostfacts.ChromiumCoarseStepNS + hostfacts.JSDoubleStepNS)
	slack := 2*step + clock.ErrNS

	var wakes, inOrder int
	var toRun, toReading []int64
	for _, l := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != "#w" {
			continue
		}
		call, err1 := strconv.ParseInt(f[1], 10, 64)
		read, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", l)
		}
		wakes++
		call, read = call+clock.OffsetNS, read+clock.OffsetNS
		// The worker's first switch-in near the notify: the one that
		// ran it, where the clocks line up.
		i := sort.Search(len(switchIns), func(i int) bool { return switchIns[i] >= call-slack })
		if i == len(switchIns) || switchIns[i] > read+slack {
			continue
		}
		toRun, toReading = append(toRun, switchIns[i]-call), append(toReading, read-switchIns[i])
		if switchIns[i]-call >= -slack && read-switchIns[i] >= -slack {
			inOrder++
		}
	}
	sort.Slice(toRun, func(i, j int) bool { return toRun[i] < toRun[j] })
	sort.Slice(toReading, func(i, j int) bool { return toReading[i] < toReading[j] })
	if len(toRun) > 0 {
		t.Logf("worker %d: %d wake-ups, %d in order within %.1f µs; notify to switch-in min %.1f µs, median %.1f µs; switch-in to the worker's reading min %.1f µs, median %.1f µs",
			worker, wakes, inOrder, float64(slack)/1e3, float64(toRun[0])/1e3, float64(toRun[len(toRun)/2])/1e3, float64(toReading[0])/1e3, float64(toReading[len(toReading)/2])/1e3)
	}
	if wakes != 100 || inOrder < 95 {
		t.Errorf("worker %d (%d switch-ins): of %d wake-ups, %d have the kernel's switch-in between the page's two readings within %d ns; want 100 wake-ups, 95 in order", worker, len(switchIns), wakes, inOrder, slack)
	}
}
