// WASI preview1 for spawnbench's JavaScript wasi-threads host: one
// @tybys/wasm-util WASI per wasm thread (each worker has its own), with
// two calls replaced so that the benchmarks' figures mean what they mean
// on every other host.
//
// clock_time_get(CLOCK_MONOTONIC): wasm-util answers performance.now() of
// the calling worker, cut to whole milliseconds. Each worker's now()
// counts from that worker's own start, so a child's reading minus its
// parent's would be meaningless, as Emscripten's is (see c/sb.h). Here
// every worker reads performance.timeOrigin + performance.now(), the one
// origin HR-Time gives a page (or a Node.js process) and all its workers.
//
// poll_oneoff with one relative clock subscription (sb_sleep_us, used by
// the calibration benchmark only): wasm-util busy-waits on Date.now() for
// whole milliseconds, so a 1 ms sleep can end at once. Here the thread
// blocks in Atomics.wait for the time asked.
import { WASI } from "./wasm-util.mjs";

const CLOCK_REALTIME = 0;
const CLOCK_MONOTONIC = 1;
const ESUCCESS = 0;

// sharedNowNs reads the clock every thread shares, in nanoseconds.
export function sharedNowNs() {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

// makeWASI returns a WASI for one thread. print and printErr get whole
// lines of standard output and error. memory() returns the shared memory.
export function makeWASI({ args, print, printErr, memory }) {
  const wasi = new WASI({ version: "preview1", args, env: {}, returnOnExit: true, print, printErr });
  const imports = wasi.wasiImport;
  const clockTimeGet = imports.clock_time_get;
  imports.clock_time_get = function (id, precision, timePtr) {
    if (id !== CLOCK_MONOTONIC) {
      return clockTimeGet.call(this, id, precision, timePtr);
    }
    new DataView(memory().buffer).setBigUint64(Number(timePtr), sharedNowNs(), true);
    return ESUCCESS;
  };
  const pollOneoff = imports.poll_oneoff;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  imports.poll_oneoff = function (inPtr, outPtr, nsubscriptions, neventsPtr) {
    const view = new DataView(memory().buffer);
    inPtr = Number(inPtr);
    // One subscription, a clock (tag 0), relative (flags 0): a sleep.
    if (nsubscriptions !== 1 || view.getUint8(inPtr + 8) !== 0 || view.getUint16(inPtr + 40, true) !== 0) {
      return pollOneoff.call(this, inPtr, outPtr, nsubscriptions, neventsPtr);
    }
    const clock = view.getUint32(inPtr + 16, true);
    if (clock !== CLOCK_MONOTONIC && clock !== CLOCK_REALTIME) {
      return pollOneoff.call(this, inPtr, outPtr, nsubscriptions, neventsPtr);
    }
    const timeoutNs = view.getBigUint64(inPtr + 24, true);
    const end = sharedNowNs() + timeoutNs;
    for (let left = timeoutNs; left > 0n; left = end - sharedNowNs()) {
      Atomics.wait(sleeper, 0, 0, Number(left) / 1e6);
    }
    outPtr = Number(outPtr);
    view.setBigUint64(outPtr, view.getBigUint64(inPtr, true), true); // userdata
    view.setUint16(outPtr + 8, ESUCCESS, true);
    view.setUint8(outPtr + 10, 0); // a clock event
    view.setUint32(Number(neventsPtr), 1, true);
    return ESUCCESS;
  };
  return wasi;
}

// memoryLimits reads the limits of the module's imported memory from its
// binary (WebAssembly.Module.imports() does not give them), in pages.
export function memoryLimits(bytes) {
  const b = new Uint8Array(bytes);
  let p = 8; // magic and version
  const u32 = () => {
    let v = 0, shift = 0, byte;
    do {
      byte = b[p++];
      v += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return v;
  };
  const name = () => {
    const n = u32();
    const s = new TextDecoder().decode(b.subarray(p, p + n));
    p += n;
    return s;
  };
  while (p < b.length) {
    const id = b[p++];
    const size = u32();
    const end = p + size;
    if (id !== 2) {
      p = end;
      continue;
    }
    for (let count = u32(); count > 0; count--) {
      const module = name(), field = name(), kind = b[p++];
      switch (kind) {
        case 0: u32(); break; // function: type index
        case 1: p++; { const f = b[p++]; u32(); if (f & 1) u32(); } break; // table
        case 2: {
          const flags = b[p++];
          const initial = u32();
          const maximum = flags & 1 ? u32() : undefined;
          return { module, field, initial, maximum, shared: Boolean(flags & 2) };
        }
        case 3: p += 2; break; // global: type, mutability
        default: throw new Error("unknown import kind " + kind);
      }
    }
    p = end;
  }
  throw new Error("the module imports no memory");
}

// The result slot of thread-spawn. @emnapi/wasi-threads returns the new
// thread's id through 8 bytes of the module's memory: at an address the
// module passes (its "new ABI"), or else in memory from the module's
// exported malloc. spawnbench's runtime (c/wasi/) has neither, so the
// host passes an address in the first KiB, which wasm-ld leaves unused
// below its --global-base (1024): nothing of the module lives there. Only
// one thread spawns at a time in the benchmarks (the main thread).
export const SPAWN_RESULT = 512;

// threadSpawnImport wraps WASIThreads' thread-spawn for a module built
// for the original wasi-threads ABI: thread-spawn(arg) returns the new
// thread's id, or a negative number.
export function threadSpawnImport(wasiThreads, memory) {
  const spawn = wasiThreads.getImportObject().wasi["thread-spawn"];
  return (arg) => {
    if (spawn(arg, SPAWN_RESULT) !== 0) {
      return -6; // EAGAIN
    }
    return Atomics.load(new Int32Array(memory().buffer, SPAWN_RESULT, 2), 1);
  };
}
