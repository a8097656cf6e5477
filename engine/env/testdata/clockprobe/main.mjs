// The clock probe (engine/env/jsruntimes_test.go): how far a worker's
// clock is from its parent's. The parent raises a flag in shared memory,
// the spinning worker writes its reading and answers, and the parent
// reads its clock again; the round trip with the shortest time bounds the
// offset. Prints one line per worker: offset_ns half_round_trip_ns.
// Usage: RUNTIME main.mjs web|worker_threads WORKERS ROUND_TRIPS
const [api, workers, k] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const { Worker: ThreadsWorker } = api === "worker_threads" ? await import("node:worker_threads") : {};
const url = new URL("./worker.mjs", import.meta.url);
for (let w = 0; w < Number(workers); w++) {
  const worker = api === "worker_threads" ? new ThreadsWorker(url, { workerData: "worker_threads" }) : new Worker(url, { type: "module" });
  const on = (f) => (api === "worker_threads" ? worker.once("message", f) : worker.addEventListener("message", (e) => f(e.data), { once: true }));
  await new Promise((resolve) => on(resolve));
  const sab = new SharedArrayBuffer(16);
  const ctl = new Int32Array(sab, 0, 2), val = new Float64Array(sab, 8, 1);
  worker.postMessage({ sab, originP: performance.timeOrigin, k: Number(k) });
  let best = Infinity, offset = 0;
  for (let i = 1; i <= Number(k); i++) {
    const t0 = performance.now();
    Atomics.store(ctl, 0, i);
    while (Atomics.load(ctl, 1) !== i);
    const t1 = performance.now();
    if (t1 - t0 < best) [best, offset] = [t1 - t0, val[0] - (t0 + t1) / 2];
  }
  console.log(Math.round(offset * 1e6) + " " + Math.round((best / 2) * 1e6));
  await worker.terminate();
}
