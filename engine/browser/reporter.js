// Installed by spawnbench in the page before any of the page's own
// scripts run. It gives the page a command line and a console, the way a
// process has argv, stdout, stderr and an exit status:
//
//   spawnbench.argv        the arguments, e.g. ["sequential", "10"]
//   spawnbench.out(line)   one line of standard output
//   spawnbench.err(line)   one line of standard error
//   spawnbench.exit(code)  the end of the run; later calls are ignored
//
// Every call goes at once to spawnbench, as a synchronous POST to %[1]s
// of the page server, so each line has reached spawnbench when the call
// returns and lines printed before a crash are kept. It is the same in
// every browser. Only pages use it: their workers post their lines to the
// page, and the benchmarks print after their spawns, not between them.
(() => {
  const send = (msg) => {
    const req = new XMLHttpRequest();
    req.open("POST", %[1]q, false);
    req.setRequestHeader("Content-Type", "text/plain;charset=utf-8");
    req.send(msg);
  };
  // A traced page waits here, before any script of its own, until
  // spawnbench has put its renderer under the trace: its first spawn is
  // traced too.
  if (%[3]t) send("t");
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
