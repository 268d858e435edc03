/**
 * What `node dist/kiln.js` (`pnpm kiln`) runs: the Node.js version check, then the command line,
 * imported only after the check as the server is (../start.ts).
 */
import { exitIfTooOld } from "../NodeVersionGate.ts"
import { relaunchWithBaselineWasmCompiler } from "../platform/BaselineWasmCompiler.ts"

exitIfTooOld()
// Before anything else loads: it runs the process again (BaselineWasmCompiler.ts).
relaunchWithBaselineWasmCompiler()
await import("./main.ts")
