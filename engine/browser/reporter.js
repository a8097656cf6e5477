// Installed by spawnbench in the page before any of the page's own
// scripts run. It gives the page a command line and a console, the way a
// process has argv, stdout, stderr and an exit status:
//
//   spawnbench.argv        the arguments, e.g. ["sequential", "10"]
//   spawnbench.out(line)   one line of standard output
//   spawnbench.err(line)   one line of standard error
//   spawnbench.exit(code)  the end of the run; later calls are ignored
//
// Every call goes at once to spawnbench through the browser's sink (%[1]s),
// so lines printed before a crash are kept: in Chromium a DevTools binding,
// dropped from the global scope so that only this object can use it; in
// Firefox, which has no bindings, a synchronous POST to the page server,
// so each line has reached spawnbench when the call returns. Only pages
// use it: their workers post their lines to the page.
(() => {
  const send = %[2]s;
  let exited = false;
  globalThis.spawnbench = Object.freeze({
    argv: Object.freeze(%[3]s),
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
