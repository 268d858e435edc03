/**
 * What `node dist/kiln.js` (`pnpm kiln`) runs: the Node.js version check, then the command line,
 * imported only after the check as the server is (../start.ts).
 */
import { exitIfTooOld } from "../NodeVersionGate.ts"
import { relaunchWithProcessFlags } from "../platform/ProcessFlags.ts"

exitIfTooOld()
// Before anything else loads: it runs the process again (ProcessFlags.ts).
relaunchWithProcessFlags()
await import("./main.ts")
