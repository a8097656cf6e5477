// Node.js entry of the JavaScript wasi-threads host:
//   node node.mjs BENCHMARK.wasm ARGS...
// from a build directory that holds jshost.json and the host's modules.
// Workers are worker_threads Workers. See main.mjs.
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { run } from "./main.mjs";

const [file, ...args] = process.argv.slice(2);
const threadURL = new URL("./thread.mjs", import.meta.url);
let stdout = "";
let exited = false;
const exit = await run({
  bytes: readFileSync(file),
  args: [file, ...args],
  // jshost.json is written by spawnbench's build (engine/env/wasithreads_jshost.go).
  reuseWorker: JSON.parse(readFileSync(new URL("./jshost.json", import.meta.url), "utf8")).reuseWorker,
  host: {
    newWorker: () => new Worker(threadURL),
    listen: (worker, f) => worker.on("message", f),
    out: (line) => { stdout += line + "\n"; },
    err: (line) => process.stderr.write(line + "\n"),
    exit: (code) => {
      exited = true;
      // For tracing: the clock every thread reads (wasi.mjs), between two
      // CLOCK_MONOTONIC readings (c/sb.h's "#mono").
      let best = null;
      for (let i = 0; i < 16; i++) {
        const a = process.hrtime.bigint();
        const c = Math.round((performance.timeOrigin + performance.now()) * 1e6);
        const b = process.hrtime.bigint();
        if (best === null || b - a < best[2] - best[0]) best = [a, c, b];
      }
      stdout += "#mono " + best[0] + " " + best[1] + " " + best[2] + "\n";
      // One write, then exit: worker_threads may still be stopping.
      process.stdout.write(stdout, () => process.exit(code));
    },
  },
});
process.on("uncaughtException", (err) => {
  process.stderr.write("spawnbench: " + (err?.stack ?? err) + "\n");
  exit(134);
});
// Every worker may be unref'd by the host: an event loop that runs dry
// before the benchmark said how it ended is a failure, not a success.
process.on("beforeExit", () => {
  if (!exited) {
    process.stderr.write("spawnbench: the host ran out of work before the benchmark exited\n");
    exit(70);
  }
});
