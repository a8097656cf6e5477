// Served by spawnbench to pages in a browser with no DevTools bindings
// (Firefox), and put by the page server before any of the page's own
// scripts. It gives the page the same object as reporter.js:
//
//   spawnbench.argv        the arguments, e.g. ["sequential", "10"]
//   spawnbench.out(line)   one line of standard output
//   spawnbench.err(line)   one line of standard error
//   spawnbench.exit(code)  the end of the run; later calls are ignored
//
// Every call is a synchronous POST to the page server (%[1]s), so each
// line has reached spawnbench when the call returns, and lines printed
// before a crash are kept. Only pages use it: their workers post their
// lines to the page, as they do in Chromium.
(() => {
  const send = (msg) => {
    const req = new XMLHttpRequest();
    req.open("POST", %[1]q, false);
    req.setRequestHeader("Content-Type", "text/plain;charset=utf-8");
    req.send(msg);
  };
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
