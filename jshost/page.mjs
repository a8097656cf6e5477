// Browser entry of the JavaScript wasi-threads host. Workers are module
// Web Workers; lines and the exit status go to spawnbench.* (installed by
// engine/browser). See main.mjs.
import { run } from "./main.mjs";

const [bench, ...args] = spawnbench.argv;
let exit = (code) => spawnbench.exit(code);
// A thread's failure reaches the page as an uncaught error (the host
// rethrows it there); it ends the run as a trap would.
addEventListener("error", () => exit(134));
addEventListener("unhandledrejection", () => exit(134));
try {
  const config = await (await fetch("jshost.json")).json();
  const res = await fetch(bench + ".wasm");
  if (!res.ok) throw new Error("cannot load " + bench + ".wasm: " + res.status);
  exit = await run({
    bytes: await res.arrayBuffer(),
    args: [bench + ".wasm", ...args],
    reuseWorker: config.reuseWorker,
    host: {
      newWorker: () => new Worker("thread.mjs", { type: "module" }),
      listen: (worker, f) => worker.addEventListener("message", (e) => f(e.data)),
      out: (line) => spawnbench.out(line),
      err: (line) => spawnbench.err(line),
      exit: (code) => spawnbench.exit(code),
    },
  });
} catch (err) {
  spawnbench.err("spawnbench: " + (err?.stack ?? err));
  spawnbench.exit(127);
}
