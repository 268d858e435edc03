import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let server: Server
let base: string
let repository: string
let startedProcesses: () => number


const advertisement = async (protocol: string) => {
  const response = await fetch(`${base}/alice/repo/info/refs?service=git-upload-pack`, { headers: { "Git-Protocol": protocol } })
  assert.strictEqual(response.status, 200)
  return Buffer.from(await response.arrayBuffer()).toString("utf8")
}

/** What git itself advertises for the repository, as the handler runs it. */
const gitsOwn = () =>
  execFileSync("git", ["-c", "uploadpack.allowFilter=true", "-c", "uploadpack.allowAnySHA1InWant=true", "upload-pack", "--stateless-rpc", "--advertise-refs", repository], {
    env: { ...process.env, GIT_PROTOCOL: "version=2" },
    input: ""
  }).toString("utf8")

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  repository = sandbox.path("repositories", "alice", "repo.git")
  await sandbox.git(["init", "-q", "--bare", repository])
  // git, through a script that notes every process the handler starts.
  const counting = await sandbox.countingGit()
  startedProcesses = counting.started
  const handler = makeSmartHttpHandler({
    gitBinary: counting.binary,
    authorize: () => Promise.resolve({ kind: "allowed", path: repository }),
    afterPush: () => Promise.resolve(),
    onError: () => {}
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}` // a listening TCP server has an AddressInfo
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await sandbox.dispose()
})

describe("protocol v2 capability advertisement", () => {
  it("is git's own, made once and then answered without a git process", async () => {
    const first = await advertisement("version=2")
    assert.strictEqual(first, gitsOwn())
    assert.strictEqual(startedProcesses(), 1)
    assert.strictEqual(await advertisement("version=2"), first)
    assert.strictEqual(startedProcesses(), 1)
  })

  it("is made again when the repository's config changes, or another protocol is asked for", async () => {
    const before = startedProcesses()
    // A config that changes the advertisement: git then announces a session id.
    await sandbox.git(["--git-dir", repository, "config", "transfer.advertiseSID", "true"])
    const changed = await advertisement("version=2")
    assert.include(changed, "session-id=")
    assert.strictEqual(startedProcesses(), before + 1)
    await advertisement("version=2:agent=other")
    assert.strictEqual(startedProcesses(), before + 2)
    // Protocol v0 lists refs: remembered while they stay as they are (RefListings.test.ts).
    await advertisement("version=0")
    await advertisement("version=0")
    assert.strictEqual(startedProcesses(), before + 3)
  })
})
