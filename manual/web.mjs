// web.mjs: runs spawn.mjs in a command-line runtime with Web Workers (Bun,
// Deno): the runtime's own `new Worker`, as module workers, since Deno
// refuses classic ones ("Classic workers are not supported").
// Usage: bun web.mjs sequential N | deno run --allow-read web.mjs ...
import { main } from "./spawn.mjs";

const scripts = {
  worker: new URL("./worker.js", import.meta.url),
  sleeper: new URL("./sleeper.mjs", import.meta.url),
};

const host = {
  startWorker(name) {
    const worker = new Worker(scripts[name], { type: "module" });
    // A worker's uncaught error (a script that fails to load, say) is only
    // an event on its Worker: make it the run's failure.
    worker.addEventListener("error", (e) => {
      process.stderr.write("spawnbench: worker " + name + ": " + (e.message || "failed to load") + "\n");
      process.exit(1);
    });
    return { worker, terminate: () => worker.terminate() };
  },
  onFirstMessage(worker, fn) {
    worker.addEventListener("message", (e) => fn(e.data), { once: true });
  },
  print: (line) => process.stdout.write(line + "\n"),
  printErr: (line) => process.stderr.write(line + "\n"),
};

process.exitCode = await main(host, process.argv.slice(2));
