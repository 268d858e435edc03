import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { gzipSync } from "node:zlib"
import { Effect } from "effect"
import type { GitStorage } from "@kiln/domain/git/GitStorage"
import { ZeroId } from "@kiln/domain/git/RefUpdate"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { FLUSH_LINE, pktLine } from "../src/PktLine.ts"
import { RepositoryLocks } from "../src/RepositoryLocks.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { type GitAccessDecision, makeSmartHttpHandler, parseSmartHttpPath, type Push } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

interface RecordedPush {
  readonly push: Push
  readonly started: number
  readonly ended: number
}

let sandbox: GitSandbox
let root: string
let server: Server
let base: string
let storage: GitStorage["Service"]
const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = []
const pushes: Array<RecordedPush> = []
let afterPushDelay = 0

// Who may do what: public repositories are readable by anyone, alice writes everywhere, bob only reads.
const privateRepos = new Set(["alice/private"])
const users = new Map([["alice", "secret"], ["bob", "bobpw"]])

const authorize = async (request: {
  owner: string
  repo: string
  service: string
  credentials: { username: string; password: string } | undefined
}): Promise<GitAccessDecision> => {
  const { owner, repo, service, credentials } = request
  const key = `${owner}/${repo}`.toLowerCase()
  if (!["alice/public", "alice/private", "alice/many", "alice/race", "alice/ghost"].includes(key)) return { kind: "not-found" }
  if (credentials !== undefined && users.get(credentials.username) !== credentials.password) return { kind: "unauthorized" }
  const user = credentials?.username
  const allowed = { kind: "allowed", path: repositoryPath(root, { owner, name: repo }) } as const
  if (service === "git-upload-pack") {
    if (!privateRepos.has(key)) return allowed
    return user === undefined ? { kind: "unauthorized" } : user === "alice" ? allowed : { kind: "not-found" }
  }
  return user === undefined ? { kind: "unauthorized" } : user === "alice" ? allowed : { kind: "forbidden", message: "Forbidden" }
}

const url = (repo: string, user?: string) =>
  `http://${user === undefined ? "" : `${user}:${users.get(user)}@`}${base.slice("http://".length)}/alice/${repo}.git`

const create = (name: string) => Effect.runPromise(storage.create({ owner: "alice", name }, { defaultBranch: "main" }))
const serverRefs = (name: string) => sandbox.refs(repositoryPath(root, { owner: "alice", name }))

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  root = sandbox.path("data")
  storage = await Effect.runPromise(makeGitStorage(root))
  const handler = makeSmartHttpHandler({
    authorize,
    afterPush: async (push) => {
      const started = performance.now()
      await sleep(afterPushDelay)
      pushes.push({ push, started, ended: performance.now() })
    },
    onError: () => {}
  })
  server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers })
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}` // a listening TCP server has an AddressInfo
  for (const name of ["public", "private", "many", "race"]) await create(name)
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await sandbox.dispose()
})

describe("SmartHttp with the stock git CLI", () => {
  it("clones an empty repository and pushes a first branch", async () => {
    const clone = await sandbox.run(["clone", url("public"), sandbox.path("first")])
    assert.strictEqual(clone.code, 0, clone.stderr)
    assert.include(clone.stderr, "empty repository")
    const work = sandbox.path("first")
    await sandbox.git(["checkout", "-q", "-b", "main"], { cwd: work })
    const first = await sandbox.commit(work, { "README.md": "hello\n" }, "first")
    await sandbox.git(["remote", "set-url", "origin", url("public", "alice")], { cwd: work })
    await sandbox.git(["push", "-q", "origin", "main"], { cwd: work })
    // The push returned only after afterPush had finished.
    assert.deepStrictEqual(pushes.map((p) => p.push.updates), [[{ ref: "refs/heads/main", oldId: ZeroId, newId: first }]])
    assert.deepStrictEqual(pushes[0]?.push.owner, "alice")
    assert.deepStrictEqual(pushes[0]?.push.repo, "public")
    assert.deepStrictEqual(await serverRefs("public"), new Map([["refs/heads/main", first]]))
  })

  it("pushes branches and tags, force-pushes and deletes by push", async () => {
    const work = sandbox.path("first")
    pushes.length = 0
    const before = (await serverRefs("public")).get("refs/heads/main") ?? "missing"
    const feature = await sandbox.commit(work, { "feature.txt": "f\n" }, "feature work")
    await sandbox.git(["branch", "feature"], { cwd: work })
    await sandbox.git(["tag", "light"], { cwd: work })
    await sandbox.git(["tag", "-a", "-m", "version one", "v1"], { cwd: work })
    await sandbox.git(["push", "-q", "origin", "main", "feature", "light", "v1"], { cwd: work })
    const v1 = (await sandbox.git(["rev-parse", "v1"], { cwd: work })).trim()
    assert.deepStrictEqual(pushes.map((p) => p.push.updates), [[
      { ref: "refs/heads/feature", oldId: ZeroId, newId: feature },
      { ref: "refs/heads/main", oldId: before, newId: feature },
      { ref: "refs/tags/light", oldId: ZeroId, newId: feature },
      { ref: "refs/tags/v1", oldId: ZeroId, newId: v1 }
    ]])
    assert.notStrictEqual(v1, feature) // an annotated tag is its own object

    // Rewrite main and force it over the server's history.
    await sandbox.git(["commit", "-q", "--amend", "-m", "feature work, reworded"], { cwd: work })
    const rewritten = (await sandbox.git(["rev-parse", "HEAD"], { cwd: work })).trim()
    const plain = await sandbox.run(["push", "origin", "main"], { cwd: work })
    assert.notStrictEqual(plain.code, 0)
    await sandbox.git(["push", "-q", "--force", "origin", "main"], { cwd: work })
    await sandbox.git(["push", "-q", "origin", ":feature"], { cwd: work })
    assert.deepStrictEqual(pushes.slice(1).map((p) => p.push.updates), [
      [{ ref: "refs/heads/main", oldId: feature, newId: rewritten }],
      [{ ref: "refs/heads/feature", oldId: feature, newId: ZeroId }]
    ])
    assert.deepStrictEqual(await serverRefs("public"), new Map([
      ["refs/heads/main", rewritten],
      ["refs/tags/light", feature],
      ["refs/tags/v1", v1]
    ]))
  })

  it("clones again with every ref the server has", async () => {
    const mirror = sandbox.path("mirror.git")
    await sandbox.git(["clone", "-q", "--mirror", url("public"), mirror])
    const server = await serverRefs("public")
    assert.deepStrictEqual(await sandbox.refs(mirror), server)
    const listed = new Map((await sandbox.git(["ls-remote", url("public")])).trim().split("\n").map((line) => {
      const [id = "", ref = ""] = line.split("\t")
      return [ref, id]
    }))
    for (const [ref, id] of server) assert.strictEqual(listed.get(ref), id, ref)
    assert.strictEqual(listed.get("HEAD"), server.get("refs/heads/main"))
    const clone = sandbox.path("second")
    await sandbox.git(["clone", "-q", url("public"), clone])
    assert.strictEqual((await sandbox.git(["rev-parse", "HEAD"], { cwd: clone })).trim(), server.get("refs/heads/main"))
    await sandbox.git(["fsck", "--strict"], { cwd: clone })
  })

  it("speaks protocol v2 when the client asks and v0 otherwise", async () => {
    requests.length = 0
    await sandbox.git(["-c", "protocol.version=2", "clone", "-q", url("public"), sandbox.path("v2")])
    assert.isTrue(requests.length > 0 && requests.every((r) => r.headers["git-protocol"] === "version=2"))
    requests.length = 0
    await sandbox.git(["-c", "protocol.version=0", "clone", "-q", url("public"), sandbox.path("v0")])
    assert.isTrue(requests.length > 0 && requests.every((r) => r.headers["git-protocol"] === undefined))

    const v0 = await fetch(`${base}/alice/public.git/info/refs?service=git-upload-pack`)
    assert.strictEqual(v0.status, 200)
    assert.strictEqual(v0.headers.get("content-type"), "application/x-git-upload-pack-advertisement")
    assert.include(v0.headers.get("cache-control") ?? "", "no-cache")
    assert.match(await v0.text(), /^001e# service=git-upload-pack\n0000[0-9a-f]{4}[0-9a-f]{40} HEAD\0/)
    const v2 = await fetch(`${base}/alice/public/info/refs?service=git-upload-pack`, { headers: { "Git-Protocol": "version=2" } })
    assert.strictEqual(v2.headers.get("content-type"), "application/x-git-upload-pack-advertisement")
    assert.match(await v2.text(), /^000eversion 2\n/)
  })

  it("answers a protocol v2 fetch of an object the repository lacks with git's error, at once", async () => {
    // upload-pack refuses the `want` and exits before reading the lines after it.
    const missing = "1234567890abcdef1234567890abcdef12345678"
    const response = await fetch(`${base}/alice/public.git/git-upload-pack`, {
      method: "POST",
      headers: { "Content-Type": "application/x-git-upload-pack-request", "Git-Protocol": "version=2" },
      body: `${pktLine("command=fetch\n")}0001${pktLine("ofs-delta\n")}${pktLine(`want ${missing}\n`)}` +
        `${pktLine(`have ${"ab".repeat(20)}\n`)}${pktLine("done\n")}${FLUSH_LINE}`
    })
    assert.strictEqual(response.status, 200)
    assert.include(await response.text(), `ERR upload-pack: not our ref ${missing}`)
  }, 10_000)

  it("gunzips request bodies", async () => {
    // Forty branches make a fetch request larger than 1 KiB, which git sends gzipped.
    const work = await sandbox.workTree("many")
    await sandbox.commit(work, { "README.md": "many\n" }, "root")
    for (let i = 0; i < 40; i++) {
      await sandbox.git(["checkout", "-q", "-b", `branch-${i}`, "main"], { cwd: work })
      await sandbox.commit(work, { [`file-${i}.txt`]: `${i}\n` }, `commit ${i}`)
    }
    await sandbox.git(["push", "-q", url("many", "alice"), "--all"], { cwd: work })
    requests.length = 0
    await sandbox.git(["-c", "protocol.version=0", "clone", "-q", "--mirror", url("many"), sandbox.path("many-clone.git")])
    assert.isTrue(requests.some((r) => r.method === "POST" && r.headers["content-encoding"] === "gzip"))
    assert.deepStrictEqual(await sandbox.refs(sandbox.path("many-clone.git")), await serverRefs("many"))

    // The same by hand: a gzipped protocol v2 ls-refs request.
    const response = await fetch(`${base}/alice/many.git/git-upload-pack`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-git-upload-pack-request",
        "Content-Encoding": "gzip",
        "Git-Protocol": "version=2"
      },
      body: gzipSync("0014command=ls-refs\n00010000")
    })
    assert.strictEqual(response.headers.get("content-type"), "application/x-git-upload-pack-result")
    const listing = await response.text()
    assert.include(listing, " refs/heads/branch-39\n")
    assert.isTrue(listing.endsWith("0000"))
  })

  it("challenges an unauthorized push and changes nothing", async () => {
    const challenge = await fetch(`${base}/alice/public.git/info/refs?service=git-receive-pack`)
    assert.strictEqual(challenge.status, 401)
    assert.strictEqual(challenge.headers.get("www-authenticate"), 'Basic realm="."')
    const wrongPassword = await fetch(`${base}/alice/public.git/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Basic ${Buffer.from("alice:nope").toString("base64")}` }
    })
    assert.strictEqual(wrongPassword.status, 401)

    const before = await serverRefs("public")
    pushes.length = 0
    const work = sandbox.path("second")
    await sandbox.commit(work, { "intruder.txt": "x\n" }, "intrusion")
    const anonymous = await sandbox.run(["push", url("public"), "HEAD:refs/heads/intruder"], { cwd: work })
    assert.notStrictEqual(anonymous.code, 0)
    const readOnly = await sandbox.run(["push", url("public", "bob"), "HEAD:refs/heads/intruder"], { cwd: work })
    assert.notStrictEqual(readOnly.code, 0)
    assert.include(readOnly.stderr, "403")
    assert.deepStrictEqual(await serverRefs("public"), before)
    assert.deepStrictEqual(pushes, [])
  })

  it("asks anonymous readers of a private repository to authenticate", async () => {
    const anonymous = await sandbox.run(["clone", url("private"), sandbox.path("private-anon")])
    assert.notStrictEqual(anonymous.code, 0)
    const probe = await fetch(`${base}/alice/private.git/info/refs?service=git-upload-pack`)
    assert.strictEqual(probe.status, 401)
    assert.strictEqual(probe.headers.get("www-authenticate"), 'Basic realm="."')
    const owner = await sandbox.run(["clone", url("private", "alice"), sandbox.path("private-alice")])
    assert.strictEqual(owner.code, 0, owner.stderr)
    const stranger = await fetch(`${base}/alice/private.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from("bob:bobpw").toString("base64")}` }
    })
    assert.strictEqual(stranger.status, 404)
  })

  it("serialises concurrent pushes to one repository", async () => {
    const seed = await sandbox.workTree("race-seed")
    const base0 = await sandbox.commit(seed, { "a.txt": "a\n" }, "base")
    await sandbox.git(["push", "-q", url("race", "alice"), "main"], { cwd: seed })
    const left = sandbox.path("race-left")
    const right = sandbox.path("race-right")
    for (const dir of [left, right]) await sandbox.git(["clone", "-q", url("race", "alice"), dir])
    const leftId = await sandbox.commit(left, { "left.txt": "l\n" }, "left")
    const rightId = await sandbox.commit(right, { "right.txt": "r\n" }, "right")
    pushes.length = 0
    afterPushDelay = 300
    try {
      // Different branches: both land, each reported on its own.
      await Promise.all([
        sandbox.git(["push", "-q", "origin", "HEAD:refs/heads/left"], { cwd: left }),
        sandbox.git(["push", "-q", "origin", "HEAD:refs/heads/right"], { cwd: right })
      ])
      assert.deepStrictEqual(
        pushes.map((p) => p.push.updates).sort((a, b) => (a[0]?.ref ?? "").localeCompare(b[0]?.ref ?? "")),
        [
          [{ ref: "refs/heads/left", oldId: ZeroId, newId: leftId }],
          [{ ref: "refs/heads/right", oldId: ZeroId, newId: rightId }]
        ]
      )
      const [first, second] = [...pushes].sort((a, b) => a.started - b.started)
      assert.isTrue(first !== undefined && second !== undefined && first.ended <= second.started)

      // The same branch from the same base: exactly one wins, and it is the one recorded.
      pushes.length = 0
      const results = await Promise.all([
        sandbox.run(["push", "origin", "HEAD:refs/heads/main"], { cwd: left }),
        sandbox.run(["push", "origin", "HEAD:refs/heads/main"], { cwd: right })
      ])
      assert.deepStrictEqual(results.map((r) => r.code === 0).sort(), [false, true])
      const winner = results[0]?.code === 0 ? leftId : rightId
      assert.deepStrictEqual(pushes.map((p) => p.push.updates), [[{ ref: "refs/heads/main", oldId: base0, newId: winner }]])
      assert.strictEqual((await serverRefs("race")).get("refs/heads/main"), winner)
    } finally {
      afterPushDelay = 0
    }
  })

  it("answers a push's probe (a bare flush) at once, while another push holds the repository", async () => {
    const work = await sandbox.workTree("probe")
    await sandbox.commit(work, { "probe.txt": "p\n" }, "probed")
    pushes.length = 0
    afterPushDelay = 1_000
    try {
      const pushing = sandbox.git(["push", "-q", url("race", "alice"), "HEAD:refs/heads/probed"], { cwd: work })
      // Once the push's follow-up runs, its write section is held for a second.
      while (requests.filter((r) => r.method === "POST" && r.url.endsWith("/race.git/git-receive-pack")).length === 0) await sleep(10)
      await sleep(300)
      // What git sends before a pack past http.postBuffer: the same credentials and a flush.
      const probe = await fetch(`${base}/alice/race.git/git-receive-pack`, {
        method: "POST",
        headers: {
          Authorization: `Basic ${Buffer.from("alice:secret").toString("base64")}`,
          "Content-Type": "application/x-git-receive-pack-request"
        },
        body: FLUSH_LINE
      })
      const answered = performance.now()
      assert.strictEqual(probe.status, 200)
      assert.strictEqual(probe.headers.get("content-type"), "application/x-git-receive-pack-result")
      assert.strictEqual(await probe.text(), "")
      await pushing
      const [held] = pushes
      assert.isDefined(held)
      assert.isTrue(held !== undefined && answered < held.ended, "the probe waited for the push's write section")
      // A refused probe is still refused.
      const anonymous = await fetch(`${base}/alice/race.git/git-receive-pack`, {
        method: "POST",
        headers: { "Content-Type": "application/x-git-receive-pack-request" },
        body: FLUSH_LINE
      })
      assert.strictEqual(anonymous.status, 401)
    } finally {
      afterPushDelay = 0
    }
  })

  it("answers 404, 405 and 415 where git has nothing to serve", async () => {
    assert.strictEqual((await fetch(`${base}/alice/unknown.git/info/refs?service=git-upload-pack`)).status, 404)
    assert.strictEqual((await fetch(`${base}/alice/ghost.git/info/refs?service=git-upload-pack`)).status, 404) // allowed, no directory
    assert.strictEqual((await fetch(`${base}/alice/public.git/HEAD`)).status, 404)
    assert.strictEqual((await fetch(`${base}/alice/public.git/info/refs`)).status, 403) // dumb protocol
    assert.strictEqual((await fetch(`${base}/alice/public.git/git-upload-pack`)).status, 405)
    const wrongType = await fetch(`${base}/alice/public.git/git-upload-pack`, { method: "POST", body: "0000" })
    assert.strictEqual(wrongType.status, 415)
  })
})

describe("parseSmartHttpPath", () => {
  it("finds owner, repository and action at the end of the path", () => {
    assert.deepStrictEqual(parseSmartHttpPath("/alice/repo.git/info/refs"), { owner: "alice", repo: "repo", action: "info/refs" })
    assert.deepStrictEqual(parseSmartHttpPath("/alice/repo/git-upload-pack"), { owner: "alice", repo: "repo", action: "git-upload-pack" })
    assert.deepStrictEqual(parseSmartHttpPath("/git/Al%69ce/r.git/git-receive-pack"), { owner: "Alice", repo: "r", action: "git-receive-pack" })
    assert.strictEqual(parseSmartHttpPath("/alice/repo.git/objects/info/packs"), undefined)
    assert.strictEqual(parseSmartHttpPath("/repo.git/info/refs"), undefined)
    assert.strictEqual(parseSmartHttpPath("/alice/%E0%A4%A/info/refs"), undefined)
  })
})

describe("RepositoryLocks", () => {
  it("runs one task at a time per key and different keys side by side", async () => {
    const locks = new RepositoryLocks()
    const log: Array<string> = []
    const task = (key: string, name: string, ms: number) =>
      locks.withLock(key, async () => {
        log.push(`${name}+`)
        await sleep(ms)
        log.push(`${name}-`)
      })
    await Promise.all([task("a", "a1", 40), task("a", "a2", 10), task("b", "b1", 10)])
    assert.deepStrictEqual(log, ["a1+", "b1+", "b1-", "a1-", "a2+", "a2-"])
    assert.strictEqual(locks.size, 0)
    // A failing task releases the lock for the next one.
    const failed = locks.withLock("a", () => Promise.reject(new Error("boom")))
    await failed.catch(() => {})
    assert.strictEqual(await locks.withLock("a", async () => "next"), "next")
  })
})

describe("SmartHttp when the client leaves during its authorization", () => {
  it("aborts the signal the authorization was given, and answers nothing", async () => {
    const aborted: Array<string> = []
    let reached: () => void = () => {}
    const waiting = new Promise<void>((resolve) => {
      reached = resolve
    })
    const handler = makeSmartHttpHandler({
      // A sign-in waiting for its turn: it ends only when its client leaves.
      authorize: (request) =>
        new Promise<GitAccessDecision>((_, reject) => {
          request.signal?.addEventListener("abort", () => {
            aborted.push(`${request.owner}/${request.repo}`)
            reject(new Error("client left"))
          })
          reached()
        }),
      afterPush: async () => {},
      onError: (error) => {
        throw error
      }
    })
    const leaving = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => leaving.listen(0, "127.0.0.1", resolve))
    try {
      const controller = new AbortController()
      const port = (leaving.address() as AddressInfo).port // a listening TCP server has an AddressInfo
      const answer = fetch(`http://127.0.0.1:${port}/alice/public.git/info/refs?service=git-upload-pack`, {
        signal: controller.signal
      }).then(() => "answered", () => "left")
      await waiting
      controller.abort()
      assert.strictEqual(await answer, "left")
      for (let i = 0; i < 100 && aborted.length === 0; i++) await sleep(10)
      assert.deepStrictEqual(aborted, ["alice/public"])
    } finally {
      await new Promise((resolve) => leaving.close(resolve))
    }
  })
})
