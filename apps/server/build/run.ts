/**
 * `node build/run.ts main|kiln [arguments]`: `pnpm start` and `pnpm kiln`. Runs the bundle's entry
 * point, bundling first when the sources changed (FreshBundle.ts), as if it had been started
 * itself: the arguments after its name are the command's own.
 */
import { pathToFileURL } from "node:url"
import { ensureFreshBundle } from "./FreshBundle.ts"
import { cliEntry, serverEntry } from "./ServerBundle.ts"

const [, , name, ...args] = process.argv
const entry = name === "main" ? serverEntry : name === "kiln" ? cliEntry : undefined
if (entry === undefined) {
  process.stderr.write("usage: node build/run.ts main|kiln [arguments]\n")
  process.exit(2)
}
await ensureFreshBundle()
process.argv = [process.argv[0] ?? process.execPath, entry, ...args]
await import(pathToFileURL(entry).href)
