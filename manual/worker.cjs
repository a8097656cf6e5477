// worker.cjs: a Node.js worker for node.mjs. Its first act is to read the
// clock; it sends that reading and its time origin (see spawn.mjs).
const now = performance.now();
require("node:worker_threads").parentPort.postMessage([performance.timeOrigin, now]);
