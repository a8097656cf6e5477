// sleeper-node.mjs: the calibration's Node.js worker: sleeps the
// microseconds it is sent (see sleepAtLeast in spawn.mjs).
import { parentPort } from "node:worker_threads";
import { sleepAtLeast } from "./spawn.mjs";

parentPort.once("message", (us) => parentPort.postMessage(sleepAtLeast(us)));
