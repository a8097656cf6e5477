// Installed by spawnbench in the page before any of the page's own
// scripts run. It gives the page a command line and a console, the way a
// process has argv, stdout, stderr and an exit status:
//
//   spawnbench.argv        the arguments, e.g. ["sequential", "10"]
//   spawnbench.out(line)   one line of standard output
//   spawnbench.err(line)   one line of standard error
//   spawnbench.exit(code)  the end of the run; later calls are ignored
//
// Every call goes at once to spawnbench through a DevTools binding
// (%[1]s), so lines printed before a crash are kept. The binding is
// dropped from the global scope so that only this object can use it.
(() => {
  const send = globalThis[%[1]q];
  delete globalThis[%[1]q];
  let exited = false;
  globalThis.spawnbench = Object.freeze({
    argv: Object.freeze(%[2]s),
    out: (line) => send("o" + line),
    err: (line) => send("e" + line),
    exit: (code) => {
      if (!exited) {
        exited = true;
        send("x" + code);
      }
    },
  });
  // An error nobody caught is standard error, as a runtime would print it.
  addEventListener("error", (e) => send("e" + "uncaught " + (e.error && e.error.stack || e.message)));
  addEventListener("unhandledrejection", (e) => send("e" + "unhandled rejection " + (e.reason && e.reason.stack || e.reason)));
})();
