import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { Effect } from "effect"
import { ZeroId } from "@kiln/domain/git/RefUpdate"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

const IDLE_MS = 800

let sandbox: GitSandbox
let root: string
let server: Server
let port: number
const errors: Array<string> = []

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  root = sandbox.path("data")
  const storage = await Effect.runPromise(makeGitStorage(root))
  await Effect.runPromise(storage.create({ owner: "alice", name: "idle" }, { defaultBranch: "main" }))
  const handler = makeSmartHttpHandler({
    authorize: async ({ owner, repo }) => ({ kind: "allowed", path: repositoryPath(root, { owner, name: repo }) }),
    afterPush: async () => undefined,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    idleTimeoutMillis: IDLE_MS
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port // a listening TCP server has an AddressInfo
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await sandbox.dispose()
})

const pktLine = (text: string) => `${(text.length + 4).toString(16).padStart(4, "0")}${text}`

/**
 * A receive-pack request creating `refs/heads/<branch>` at a new commit: the command, then the pack
 * (of `content`, by default text that packs small).
 */
const pushBody = async (branch: string, content = `${branch}\n`.repeat(2000)) => {
  const work = await sandbox.workTree(`work-${branch}`)
  const commit = await sandbox.commit(work, { [`${branch}.txt`]: content }, branch)
  const pack = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile("git", ["pack-objects", "--stdout", "--revs", "-q"], { cwd: work, env: sandbox.env, encoding: "buffer", maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error))
    child.stdin?.end(`${commit}\n`)
  })
  return { commit, body: Buffer.concat([Buffer.from(`${pktLine(`${ZeroId} ${commit} refs/heads/${branch}\0report-status\n`)}0000`), pack]) }
}

/** A raw HTTP/1.1 POST whose body the test sends itself, piece by piece. */
const rawPost = (path: string, contentType: string, length: number) => {
  const socket = connect(port, "127.0.0.1")
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`)
  const received: Array<Buffer> = []
  socket.on("data", (chunk: Buffer) => received.push(chunk))
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())))
  socket.on("error", () => undefined)
  return { socket, closed, text: () => Buffer.concat(received).toString("latin1") }
}

it("drops a push whose client stalls before its first MiB came (git never started), and says so", async () => {
  const { body } = await pushBody("stalled")
  const started = performance.now()
  const post = rawPost("/alice/idle.git/git-receive-pack", "application/x-git-receive-pack-request", body.length)
  post.socket.write(body.subarray(0, 20))
  const closedAt = await Promise.race([post.closed, sleep(IDLE_MS * 8).then(() => undefined)])
  post.socket.destroy()
  assert.isDefined(closedAt, "the stalled exchange was never dropped")
  assert.isAtLeast((closedAt ?? 0) - started, IDLE_MS * 0.9)
  assert.isTrue(errors.some((message) => message.includes("moved no data")), errors.join("; "))
  assert.isFalse((await sandbox.refs(repositoryPath(root, { owner: "alice", name: "idle" }))).has("refs/heads/stalled"))
}, 30_000)

it("never cuts a push that keeps moving, however long it takes in all", async () => {
  const { commit, body } = await pushBody("trickled")
  const post = rawPost("/alice/idle.git/git-receive-pack", "application/x-git-receive-pack-request", body.length)
  const started = performance.now()
  // Ten pieces, each well within the idle timeout, the whole well past it.
  const pieces = 10
  const size = Math.ceil(body.length / pieces)
  for (let offset = 0; offset < body.length; offset += size) {
    post.socket.write(body.subarray(offset, offset + size))
    await sleep(IDLE_MS / 3)
  }
  for (let waited = 0; waited < 10_000 && !post.text().includes("unpack ok"); waited += 50) await sleep(50)
  post.socket.destroy()
  assert.isAbove(performance.now() - started, IDLE_MS * 3)
  assert.include(post.text(), "HTTP/1.1 200")
  assert.include(post.text(), "unpack ok")
  assert.strictEqual((await sandbox.refs(repositoryPath(root, { owner: "alice", name: "idle" }))).get("refs/heads/trickled"), commit)
}, 30_000)

/** What receive-pack is receiving into, until it accepts or refuses it (its quarantine). */
const quarantines = () => readdirSync(repositoryPath(root, { owner: "alice", name: "idle" }) + "/objects").filter((name) => name.startsWith("tmp_objdir-incoming-"))

/**
 * Sends a push's command and half its pack (3 MB that does not compress: git starts once the first
 * MiB has come), then waits for git to receive into its quarantine.
 */
const halfPush = async (branch: string) => {
  const { body } = await pushBody(branch, randomBytes(3_000_000).toString("base64"))
  const post = rawPost("/alice/idle.git/git-receive-pack", "application/x-git-receive-pack-request", body.length)
  post.socket.write(body.subarray(0, body.length / 2))
  for (let waited = 0; waited < 5_000 && quarantines().length === 0; waited += 20) await sleep(20)
  assert.isNotEmpty(quarantines(), "git never started receiving the pack")
  return post
}

/** Waits for the quarantines to go (git removes its own as it exits). */
const quarantinesGone = async () => {
  for (let waited = 0; waited < 5_000 && quarantines().length > 0; waited += 50) await sleep(50)
  return quarantines()
}

it("a push whose client goes away mid-pack leaves nothing of it in the repository", async () => {
  const post = await halfPush("abandoned")
  post.socket.destroy()
  // git was killed, and left what it had received in the repository for good: now it is told its
  // input ended, and removes it.
  assert.deepStrictEqual(await quarantinesGone(), [])
  assert.isFalse((await sandbox.refs(repositoryPath(root, { owner: "alice", name: "idle" }))).has("refs/heads/abandoned"))
}, 30_000)

it("a push stopped for stalling mid-pack leaves nothing of it in the repository", async () => {
  const post = await halfPush("stalled-pack")
  await Promise.race([post.closed, sleep(IDLE_MS * 8)])
  post.socket.destroy()
  assert.deepStrictEqual(await quarantinesGone(), [])
  assert.isFalse((await sandbox.refs(repositoryPath(root, { owner: "alice", name: "idle" }))).has("refs/heads/stalled-pack"))
}, 30_000)
