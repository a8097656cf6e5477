// worker.js: a browser worker for index.html. Its first act is to read the
// clock; it sends that reading and its time origin (see spawn.mjs).
const now = performance.now();
postMessage([performance.timeOrigin, now]);
