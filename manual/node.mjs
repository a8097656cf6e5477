// node.mjs: runs spawn.mjs in Node.js with worker_threads.
// Usage: node node.mjs sequential N | parallel N | calibration MICROSECONDS
import { Worker } from "node:worker_threads";
import { main, monoLine } from "./spawn.mjs";

const scripts = {
  worker: new URL("./worker.cjs", import.meta.url),
  sleeper: new URL("./sleeper-node.mjs", import.meta.url),
};

const host = {
  startWorker(name) {
    const worker = new Worker(scripts[name]);
    return { worker, terminate: () => worker.terminate() };
  },
  onFirstMessage(worker, fn) {
    worker.once("message", fn);
  },
  print: (line) => process.stdout.write(line + "\n"),
  printErr: (line) => process.stderr.write(line + "\n"),
  monoLine: (clock) => monoLine(clock, () => process.hrtime.bigint()),
};

// exitCode, not exit(): exit() could cut stdout short when it is a pipe.
process.exitCode = await main(host, process.argv.slice(2));
