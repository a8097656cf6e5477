// spawn.mjs: the manual benchmarks, the same code for Node.js (node.mjs)
// and Chromium (index.html). No C and no Emscripten: a raw worker whose
// script posts one message at once, which is as cheap as a thread can be
// in a JavaScript host.
//
// Usage (argv): sequential N | parallel N | calibration MICROSECONDS
//
// Output is c/sb.h's line protocol, one line per worker in spawn order,
// nanoseconds:
//   spawn_ns  = the worker's first clock reading - the parent's reading
//               just before `new Worker`
//   create_ns = the parent's reading when `new Worker` returned - same start
//   joined_ns = the parent's reading when the worker's message arrived -
//               same start (the earlier study's measure)
// spawn_ns stops at the worker's first instruction, as in the C
// benchmarks; joined_ns adds the postMessage hop back and the wait for the
// parent's event loop, which is what a program waiting for a worker sees.
//
// The clock is HR-Time's: each context reads performance.now() and the
// worker also sends its performance.timeOrigin, so its reading is put on
// the parent's time line as (origin_w - origin_p) + now_w. The origins are
// on one shared clock for a page and its workers (and for Node.js's worker
// threads); subtracting them first keeps the full precision of now() where
// adding them to now() would round to 0.24 us.

// host is what each runtime supplies:
//   startWorker(name): { worker, terminate() }, the worker created from
//     the host's script for name: "worker" (posts at once) or "sleeper"
//   onFirstMessage(worker, fn): call fn(data) for the worker's message
//   print(line), printErr(line)
//   monoLine() (optional): a "#mono" line (c/sb.h), this context's
//     performance.now() in ns between two CLOCK_MONOTONIC readings, where
//     the runtime can read that clock (Node.js's process.hrtime)
//   syncLine() (optional): a "#sync" line (c/sb.h) where the runtime
//     cannot read CLOCK_MONOTONIC (a browser's page): one reading of
//     performance.now() in ns with the page's wall clock at it,
//     performance.timeOrigin + now(), for the real-time reading
export async function main(host, argv) {
  const [bench, argText] = argv;
  const arg = Number(argText);
  if (argv.length !== 2 || !Number.isInteger(arg) || arg < 0 || (bench !== "calibration" && arg === 0)) {
    host.printErr("spawnbench: usage: sequential N | parallel N | calibration MICROSECONDS; got " + JSON.stringify(argv));
    return 2;
  }
  switch (bench) {
    case "sequential":
      return report(host, await sequential(host, arg));
    case "parallel":
      return report(host, await parallel(host, arg));
    case "calibration":
      return calibration(host, arg);
  }
  host.printErr("spawnbench: unknown benchmark " + JSON.stringify(bench));
  return 2;
}

// spawn creates one worker and returns its timings as promised numbers
// (milliseconds on the parent's performance.now() time line).
function spawn(host) {
  const t = { before: 0, created: 0, child: 0, arrived: 0 };
  t.before = performance.now();
  const w = host.startWorker("worker");
  t.created = performance.now();
  t.done = new Promise((resolve) => {
    host.onFirstMessage(w.worker, ([origin, now]) => {
      t.arrived = performance.now();
      t.child = origin - performance.timeOrigin + now;
      resolve();
    });
  });
  t.terminate = w.terminate;
  return t;
}

// sequential: one worker at a time; each is terminated (awaited, where
// the host can) before the next starts, as sequential.c joins each thread.
async function sequential(host, n) {
  const all = [];
  for (let i = 0; i < n; i++) {
    const t = spawn(host);
    await t.done;
    await t.terminate();
    all.push(t);
  }
  return all;
}

// parallel: create all n, then wait for every message. joined_ns is each
// worker's own arrival, not the end of an in-order wait.
async function parallel(host, n) {
  const all = [];
  for (let i = 0; i < n; i++) all.push(spawn(host));
  await Promise.all(all.map((t) => t.done));
  await Promise.all(all.map((t) => t.terminate()));
  return all;
}

// report prints the spawn lines, then for tracing each spawn's call on
// the parent's performance.now() ("#at", ns) and, where the host can, the
// reading that puts that clock on CLOCK_MONOTONIC ("#mono") or on
// CLOCK_REALTIME ("#sync").
function report(host, all) {
  const ns = (ms) => Math.round(ms * 1e6);
  for (const t of all) {
    host.print(ns(t.child - t.before) + " " + ns(t.created - t.before) + " " + ns(t.arrived - t.before));
  }
  all.forEach((t, i) => host.print("#at " + (i + 1) + " " + ns(t.before)));
  if (host.monoLine) host.print(host.monoLine(() => performance.now() * 1e6));
  if (host.syncLine) host.print(host.syncLine());
  return 0;
}

// monoLine is a "#mono" line for a runtime with process.hrtime.bigint()
// (CLOCK_MONOTONIC): clock() in ns between two of its readings, the
// tightest of a few.
export function monoLine(clock, hrtime) {
  let best = null;
  for (let i = 0; i < 16; i++) {
    const a = hrtime();
    const c = clock();
    const b = hrtime();
    if (best === null || b - a < best[2] - best[0]) best = [a, c, b];
  }
  return "#mono " + best[0] + " " + Math.round(best[1]) + " " + best[2];
}

// calibration has a worker sleep at least us microseconds and print what
// its performance.now() measured, after the clock's step (Chromium and
// Firefox coarsen it) and the cost of one reading on a "#clock" line. The sleep is Atomics.wait, which a worker may
// use and a page's main thread may not: timers on a page's main thread
// just after load wait behind its other tasks (seen: 1 ms taking 18 ms).
async function calibration(host, us) {
  const w = host.startWorker("sleeper");
  const reply = new Promise((resolve) => host.onFirstMessage(w.worker, resolve));
  w.worker.postMessage(us);
  const [stepMs, readMs, sleptMs] = await reply;
  await w.terminate();
  host.print("#clock " + Math.round(stepMs * 1e6) + " " + Math.round(readMs * 1e6));
  host.print(String(Math.round(sleptMs * 1e6)));
  return 0;
}

// sleepAtLeast is the sleepers' work (sleeper.mjs, sleeper-node.mjs): sleep
// at least us microseconds in Atomics.wait and return the clock's step,
// the cost of one reading and the milliseconds the clock measured.
export function sleepAtLeast(us) {
  const [step, read] = clockFacts();
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const start = performance.now();
  for (;;) {
    // A wait may end a little early by this clock: sleep on.
    const left = us / 1000 - (performance.now() - start);
    if (left <= 0) break;
    Atomics.wait(cell, 0, 0, left);
  }
  return [step, read, performance.now() - start];
}

// clockFacts are the smallest nonzero difference of successive readings
// and the mean cost of one reading (20000 back to back), in ms.
function clockFacts() {
  let step = Infinity;
  for (let i = 0; i < 1000; i++) {
    const a = performance.now();
    let b = performance.now();
    while (b === a) b = performance.now();
    step = Math.min(step, b - a);
  }
  const reads = 20000;
  const first = performance.now();
  let last = first;
  for (let i = 0; i < reads; i++) last = performance.now();
  return [step, (last - first) / reads];
}
