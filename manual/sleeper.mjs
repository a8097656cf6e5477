// sleeper.mjs: the calibration's browser worker (a module worker): sleeps
// the microseconds it is sent (see sleepAtLeast in spawn.mjs).
import { sleepAtLeast } from "./spawn.mjs";

onmessage = (e) => postMessage(sleepAtLeast(e.data));
