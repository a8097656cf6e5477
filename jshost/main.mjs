// The host side of spawnbench's JavaScript wasi-threads host: the thread
// that owns @emnapi/wasi-threads' ThreadManager (the page's thread in a
// browser, the main thread in Node.js). It runs no wasm itself: it starts
// the benchmark's main thread in a worker (thread.mjs) and then answers
// that worker's thread-spawn requests with the host's own defaults: a new
// worker per spawn, loaded with the module and the memory, terminated
// when its thread returns (ThreadManager with reuseWorker unset).
import { WASIThreads } from "./wasi-threads.mjs";
import { makeWASI, memoryLimits } from "./wasi.mjs";

// run runs one benchmark module. host gives the platform: newWorker(),
// out(line), err(line), exit(code).
export async function run({ bytes, args, host, reuseWorker }) {
  const module = await WebAssembly.compile(bytes);
  const limits = memoryLimits(bytes);
  const memory = new WebAssembly.Memory({ initial: limits.initial, maximum: limits.maximum, shared: true });
  let exited = false;
  const exit = (code) => {
    if (exited) return;
    exited = true;
    wasiThreads.terminateAllThreads();
    host.exit(code);
  };
  const newWorker = () => {
    const worker = host.newWorker();
    host.listen(worker, (data) => {
      switch (data?.spawnbench) {
        case "out": host.out(data.line); break;
        case "err": host.err(data.line); break;
        case "exit": exit(data.code); break;
      }
    });
    return worker;
  };
  const wasiThreads = new WASIThreads({
    // The host thread runs no wasm; WASIThreads still wants a WASI.
    wasi: makeWASI({ args, print: host.out, printErr: host.err, memory: () => memory }),
    ...(reuseWorker === undefined ? {} : { reuseWorker }),
    onCreateWorker: newWorker,
    printErr: (line) => host.err(line),
  });
  // WASIThreads takes an instance only to find malloc and free, which
  // thread-spawn with a result address (wasi.mjs) does not use.
  wasiThreads.setup({ exports: {} }, module, memory);
  await wasiThreads.preloadWorkers();
  // The main thread's worker is the host's like any other (it answers
  // its thread-spawn requests), but never one of its pool.
  const main = newWorker();
  main.postMessage({ spawnbench: "args", args });
  wasiThreads.PThread.markId(main);
  await wasiThreads.PThread.loadWasmModuleToWorker(main);
  main.postMessage({ spawnbench: "main" });
  return exit;
}
