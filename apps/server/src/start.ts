/**
 * What `node dist/main.js` runs (build/ServerBundle.ts): the Node.js version check, then the
 * server. The server is imported only after the check, so that nothing of it loads on a Node.js
 * too old to run it.
 */
import { exitIfTooOld } from "./NodeVersionGate.ts"
import { relaunchWithBaselineWasmCompiler } from "./platform/BaselineWasmCompiler.ts"

exitIfTooOld()
// Before anything else loads: it runs the process again (BaselineWasmCompiler.ts).
relaunchWithBaselineWasmCompiler()
await import("./main.ts")
