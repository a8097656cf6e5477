// One wasm thread of spawnbench's JavaScript wasi-threads host, in a
// worker: a Web Worker in a browser, a worker_threads Worker in Node.js.
//
// @emnapi/wasi-threads drives it: its ThreadManager (main.mjs) sends
// "load" (the module and the shared memory) and "start" (a thread's id and
// argument); ThreadMessageHandler instantiates the module here, runs
// wasi_thread_start and reports "cleanup-thread" when it returns, and the
// thread-spawn import of this worker's instance asks the ThreadManager
// for a new thread ("spawn-thread").
//
// The first worker is also the benchmark's main thread: main.mjs sends it
// {spawnbench: "main", args}, and it runs _start, as Emscripten's
// PROXY_TO_PTHREAD runs main off the page's thread: a thread that blocks
// in pthread_join must not be the one that starts workers.
import { ThreadMessageHandler, WASIThreads } from "./wasi-threads.mjs";
import { makeWASI, threadSpawnImport } from "./wasi.mjs";

let post, listen;
if (typeof process === "object" && process?.versions?.node) {
  const { parentPort } = await import("node:worker_threads");
  post = (m) => parentPort.postMessage(m);
  listen = (f) => parentPort.on("message", (data) => f({ data }));
} else {
  post = (m) => postMessage(m);
  listen = (f) => { onmessage = f; };
}

// Lines of output go to main.mjs, which owns the real stdout and stderr.
const print = (line) => post({ spawnbench: "out", line });
const printErr = (line) => post({ spawnbench: "err", line });

let memory, wasi, instance;
let mainArgs;

const handler = new ThreadMessageHandler({
  postMessage: post,
  onLoad({ wasmModule, wasmMemory }) {
    memory = wasmMemory;
    wasi = makeWASI({ args: mainArgs ?? ["thread"], print, printErr, memory: () => memory });
    const wasiThreads = new WASIThreads({ wasi, childThread: true, postMessage: post });
    // proc_exit on any thread ends the run: main.mjs hears the status
    // before the host's own proc_exit stops the other threads.
    const procExit = wasi.wasiImport.proc_exit;
    wasi.wasiImport.proc_exit = function (code) {
      post({ spawnbench: "exit", code });
      return procExit.call(this, code);
    };
    instance = new WebAssembly.Instance(wasmModule, {
      env: { memory: wasmMemory },
      wasi_snapshot_preview1: wasi.wasiImport,
      wasi: { "thread-spawn": threadSpawnImport(wasiThreads, () => memory) },
    });
    // For a thread, this binds WASI to the memory without running _start.
    wasiThreads.initialize(instance, wasmModule, wasmMemory);
    return { module: wasmModule, instance };
  },
  onError(error) {
    printErr("spawnbench: thread: " + (error?.stack ?? error));
    post({ spawnbench: "exit", code: 134 });
  },
});

listen((e) => {
  const m = e.data?.spawnbench;
  if (m === "args") {
    // Sent before "load" to the main thread's worker only.
    mainArgs = e.data.args;
  } else if (m === "main") {
    runMain();
  } else {
    handler.handle(e);
  }
});

function runMain() {
  try {
    instance.exports._start();
    // A _start that returns ends the program with 0, as WASI says:
    // wasi-libc's does when main returns 0 (c/wasi/'s calls proc_exit).
    post({ spawnbench: "exit", code: 0 });
  } catch (err) {
    // proc_exit ends _start by throwing (returnOnExit); anything else is
    // a trap.
    if (typeof err !== "symbol") {
      printErr("spawnbench: trap: " + (err?.stack ?? err));
      post({ spawnbench: "exit", code: 134 });
      return;
    }
  }
}
