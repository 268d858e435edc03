/**
 * What `node dist/main.js` runs (build/ServerBundle.ts): the Node.js version check, then the
 * server. The server is imported only after the check, so that nothing of it loads on a Node.js
 * too old to run it.
 */
import { exitIfTooOld } from "./NodeVersionGate.ts"
import { relaunchWithProcessFlags } from "./platform/ProcessFlags.ts"

exitIfTooOld()
// Before anything else loads: it runs the process again (ProcessFlags.ts).
relaunchWithProcessFlags()
await import("./main.ts")
