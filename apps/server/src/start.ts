/**
 * What `node dist/main.js` runs (build/ServerBundle.ts): the Node.js version check, then the
 * server. The server is imported only after the check, so that nothing of it loads on a Node.js
 * too old to run it.
 */
import { isOlder, REQUIRED_NODE_VERSION, tooOldMessage } from "./NodeVersionGate.ts"

if (isOlder(process.version, REQUIRED_NODE_VERSION)) {
  process.stderr.write(`${tooOldMessage(process.version)}\n`)
  process.exit(1)
}
await import("./main.ts")
