// The clock probe's worker: answers each of the parent's K requests with
// its own reading of the shared clock, placed on the parent's time line as
// manual/spawn.mjs places a spawn's reading.
// The parent marks a worker_threads Worker with its workerData (Bun gives
// a Web Worker a parentPort too, so nothing else tells them apart).
const { parentPort, workerData } = await import("node:worker_threads");
let post, listen;
if (workerData === "worker_threads") {
  post = (m) => parentPort.postMessage(m);
  listen = (f) => parentPort.on("message", f);
} else {
  post = (m) => postMessage(m);
  listen = (f) => { onmessage = (e) => f(e.data); };
}
listen(({ sab, originP, k }) => {
  const ctl = new Int32Array(sab, 0, 2), val = new Float64Array(sab, 8, 1);
  for (let i = 1; i <= k; i++) {
    while (Atomics.load(ctl, 0) !== i);
    val[0] = performance.timeOrigin - originP + performance.now();
    Atomics.store(ctl, 1, i);
  }
});
post("ready");
