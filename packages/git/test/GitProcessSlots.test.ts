/**
 * The git process pool (review 4b30e64, finding 17 residual): a bounded number of git processes,
 * a bounded queue answered 503 past it, and waiters whose client left never start git. Over HTTP
 * with the smart HTTP handler and real git processes.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { createServer, request as httpRequest } from "node:http"
import { PassThrough } from "node:stream"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { Effect } from "effect"
import { defaultMaxGitProcesses, GitProcessSlots, GitSlotsBusy } from "../src/GitProcessSlots.ts"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { makeGitStreams } from "../src/GitStreams.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

const gate = () => {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/** alice/repo on disk, and a pool of one git process with one waiting place. */
const oneRepositoryOneSlot = async () => {
  const sandbox = await GitSandbox.make()
  const root = sandbox.path("data")
  const storage = await Effect.runPromise(makeGitStorage(root))
  await Effect.runPromise(storage.create({ owner: "alice", name: "repo" }, { defaultBranch: "main" }))
  return { sandbox, root, slots: new GitProcessSlots(1, 1) }
}

describe("GitProcessSlots", () => {
  it("gives one client at most its share of the slots: its further requests wait, others' pass them", async () => {
    const slots = new GitProcessSlots(4, 8, 2)
    const release = new Map<string, () => void>()
    const started: Array<string> = []
    const task = (name: string) => () => {
      started.push(name)
      return new Promise<string>((resolve) => release.set(name, () => resolve(name)))
    }
    const done = [slots.run(task("a1"), undefined, "a"), slots.run(task("a2"), undefined, "a"), slots.run(task("a3"), undefined, "a")]
    assert.deepStrictEqual([slots.running, slots.waiting], [2, 1])
    // Slots are free, and b and an unnamed client take them past a's waiting request.
    done.push(slots.run(task("b1"), undefined, "b"), slots.run(task("x"), undefined, undefined))
    assert.deepStrictEqual(started, ["a1", "a2", "b1", "x"])
    assert.deepStrictEqual([slots.running, slots.waiting], [4, 1])
    // b ending frees a slot, but a still holds its share: a3 waits for one of a's own.
    release.get("b1")?.()
    await done[3]
    assert.deepStrictEqual([slots.running, slots.waiting], [3, 1])
    release.get("a1")?.()
    await done[0]
    assert.deepStrictEqual(started, ["a1", "a2", "b1", "x", "a3"])
    for (const name of ["a2", "a3", "x"]) release.get(name)?.()
    assert.deepStrictEqual(await Promise.all(done), ["a1", "a2", "a3", "b1", "x"])
    assert.deepStrictEqual([slots.running, slots.waiting], [0, 0])
  })

  it("runs at most its slots, queues at most maxWaiting, refuses the rest, and drops a waiter whose client left", async () => {
    const slots = new GitProcessSlots(2, 2)
    const release = gate()
    const started: Array<number> = []
    const task = (n: number) => () => {
      started.push(n)
      return release.opened.then(() => n)
    }
    const leaving = new AbortController()
    const running = [slots.run(task(1)), slots.run(task(2))]
    const waiting = [slots.run(task(3), leaving.signal), slots.run(task(4))]
    assert.deepStrictEqual([slots.running, slots.waiting], [2, 2])
    const refused = await slots.run(task(5)).then(() => undefined, (error: unknown) => error)
    assert.instanceOf(refused, GitSlotsBusy)
    leaving.abort(new Error("client went away"))
    const left = await waiting[0]?.then(() => undefined, (error: unknown) => error)
    assert.instanceOf(left, Error)
    assert.strictEqual(slots.waiting, 1)
    release.open()
    assert.deepStrictEqual(await Promise.all([...running, waiting[1]]), [1, 2, 4])
    assert.deepStrictEqual(started, [1, 2, 4])
    assert.deepStrictEqual([slots.running, slots.waiting], [0, 0])
  })

  it("defaults to four slots per core, at least eight", () => {
    assert.strictEqual(defaultMaxGitProcesses(1), 8)
    assert.strictEqual(defaultMaxGitProcesses(16), 64)
  })

  it("over smart HTTP: a request waits for a slot, past the queue it gets 503 with Retry-After, and runs once a slot frees", async () => {
    const { sandbox, root, slots } = await oneRepositoryOneSlot()
    const handler = makeSmartHttpHandler({
      authorize: async ({ owner, repo }) => ({ kind: "allowed", path: repositoryPath(root, { owner, name: repo }) }),
      afterPush: async () => {},
      onError: () => {},
      slots
    })
    const server = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    const infoRefs = () =>
      new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/alice/repo.git/info/refs?service=git-upload-pack" }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], body: Buffer.concat(chunks).toString() }))
        })
        req.on("error", reject)
        req.end()
      })
    try {
      // The one slot is taken (as a long clone would), and then the one place in the queue.
      const release = gate()
      const holder = slots.run(() => release.opened)
      const queued = infoRefs()
      for (let attempt = 0; slots.waiting < 1 && attempt < 500; attempt++) await new Promise((resolve) => setTimeout(resolve, 10))
      assert.strictEqual(slots.waiting, 1)
      const refused = await infoRefs()
      assert.deepStrictEqual([refused.status, refused.retryAfter], [503, "5"])
      release.open()
      await holder
      const answered = await queued
      assert.strictEqual(answered.status, 200)
      assert.include(answered.body, "# service=git-upload-pack")
      // A real clone goes through its slots too.
      // (Not execFileSync: the server answering it runs in this process.)
      await promisify(execFile)("git", ["clone", "-q", `http://127.0.0.1:${port}/alice/repo.git`, join(sandbox.path("work"), "clone")])
      assert.deepStrictEqual([slots.running, slots.waiting], [0, 0])
    } finally {
      server.close()
    }
  })

  it("over SSH's streams: git shares the pool, past the queue it is refused with one line, and runs once a slot frees", async () => {
    const { root, slots } = await oneRepositoryOneSlot()
    const streams = makeGitStreams({ afterPush: async () => {}, onError: () => {}, slots })
    const session = () => {
      const input = new PassThrough()
      const output = new PassThrough()
      const errors = new PassThrough()
      const chunks: Array<Buffer> = []
      const said: Array<Buffer> = []
      output.on("data", (chunk: Buffer) => chunks.push(chunk))
      errors.on("data", (chunk: Buffer) => said.push(chunk))
      const served = streams.serve({
        service: "git-upload-pack",
        owner: "alice",
        repo: "repo",
        path: repositoryPath(root, { owner: "alice", name: "repo" }),
        protocol: undefined,
        pusher: undefined,
        input,
        output,
        errors,
        signal: new AbortController().signal
      })
      return { served, input, output: () => Buffer.concat(chunks).toString(), errors: () => Buffer.concat(said).toString() }
    }
    const release = gate()
    const holder = slots.run(() => release.opened)
    const queued = session()
    for (let attempt = 0; slots.waiting < 1 && attempt < 500; attempt++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.strictEqual(slots.waiting, 1)
    const refused = session()
    assert.strictEqual(await refused.served, 1)
    assert.strictEqual(refused.errors(), "Kiln: too many git processes at once, try again in 5 seconds\n")
    release.open()
    await holder
    // The queued upload-pack runs: it advertises (an empty repository: a flush alone) and ends at the flush sent to it.
    queued.input.end("0000")
    assert.strictEqual(await queued.served, 0)
    assert.strictEqual(queued.output(), "0000")
    assert.deepStrictEqual([slots.running, slots.waiting], [0, 0])
  })
})
