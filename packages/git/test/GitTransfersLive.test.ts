import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { mkdir, stat } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { Effect, Exit, Option } from "effect"
import { makeGitTransfers } from "../src/GitTransfersLive.ts"
import { GitSandbox } from "./GitSandbox.ts"
import { startGitHttpBackend } from "./GitHttpBackend.ts"

let sandbox: GitSandbox
let root: string
let source: string
let work: string
beforeAll(async () => {
  sandbox = await GitSandbox.make()
  root = sandbox.path("data")
  source = join(root, "ada", "base.git")
  await mkdir(join(root, "ada"), { recursive: true })
  await sandbox.git(["init", "-q", "--bare", "-b", "trunk", source])
  work = await sandbox.workTree("work", "trunk")
  await sandbox.commit(work, { "a.txt": "a\n", "dir/b.txt": "b\n".repeat(1000) }, "first")
  await sandbox.git(["tag", "v1"], { cwd: work })
  await sandbox.git(["branch", "topic/x"], { cwd: work })
  await sandbox.git(["push", "-q", source, "trunk", "topic/x", "v1"], { cwd: work })
})
afterAll(() => sandbox.dispose())

const transfers = (options = {}) => Effect.suspend(() => makeGitTransfers(root, options))
const exists = (path: string) => Effect.promise(() => stat(path).then(() => true, () => false))

it.effect("forks with every branch and tag, hard-linked objects, no remote, and stays independent", () =>
  Effect.gen(function*() {
    const git = yield* transfers()
    yield* Effect.scoped(Effect.gen(function*() {
      const staged = yield* git.fork({ owner: "ada", name: "base" })
      assert.deepStrictEqual(staged.head, Option.some("trunk"))
      yield* staged.place({ owner: "bo", name: "Fork" })
    }))
    const fork = join(root, "bo", "fork.git")
    const refs = yield* Effect.promise(() => sandbox.refs(fork))
    const sourceRefs = yield* Effect.promise(() => sandbox.refs(source))
    assert.deepStrictEqual(refs, sourceRefs)
    assert.strictEqual((yield* Effect.promise(() => sandbox.git(["--git-dir", fork, "remote"]))).trim(), "")
    const packs = (yield* Effect.promise(() => sandbox.git(["--git-dir", fork, "count-objects", "-v"])))
    assert.match(packs, /count: \d+|in-pack: \d+/)
    // Hard links: an object file of the fork is the same inode as the source's.
    const objects = (yield* Effect.promise(() => sandbox.git(["--git-dir", source, "rev-parse", "trunk"]))).trim()
    const objectPath = (gitdir: string) => join(gitdir, "objects", objects.slice(0, 2), objects.slice(2))
    const [a, b] = yield* Effect.promise(() => Promise.all([stat(objectPath(source)), stat(objectPath(fork))]))
    assert.strictEqual(a.ino, b.ino)

    // Independent: a push to the fork leaves the base alone, and the fork survives the base's deletion.
    const next = yield* Effect.promise(() => sandbox.commit(work, { "c.txt": "c\n" }, "second"))
    yield* Effect.promise(() => sandbox.git(["push", "-q", fork, "trunk"], { cwd: work }))
    assert.strictEqual((yield* Effect.promise(() => sandbox.refs(source))).get("refs/heads/trunk"), sourceRefs.get("refs/heads/trunk"))
    yield* Effect.promise(() => sandbox.git(["--git-dir", source, "gc", "-q", "--prune=now"]))
    yield* Effect.promise(() => import("node:fs/promises").then(({ rm }) => rm(source, { recursive: true, force: true })))
    yield* Effect.promise(() => sandbox.git(["--git-dir", fork, "fsck", "--strict"]))
    assert.strictEqual((yield* Effect.promise(() => sandbox.refs(fork))).get("refs/heads/trunk"), next)
    // Restore the base for the other tests.
    yield* Effect.promise(() => sandbox.git(["clone", "-q", "--bare", fork, source]))
  }))

it.effect("places nothing and leaves no staging directory when the scope closes unplaced or the target exists", () =>
  Effect.gen(function*() {
    const git = yield* transfers()
    const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
      const staged = yield* git.fork({ owner: "ada", name: "base" })
      return yield* staged.place({ owner: "ada", name: "base" })
    })))
    assert.isTrue(Exit.isFailure(exit))
    const leftovers = yield* Effect.promise(() => import("node:fs/promises").then(({ readdir }) => readdir(join(root, ".staging"))))
    assert.deepStrictEqual(leftovers, [])
    const missing = yield* Effect.exit(Effect.scoped(git.fork({ owner: "ada", name: "nothing" })))
    assert.isTrue(Exit.isFailure(missing))
  }))

it.effect("clones a remote over http with credentials, and refuses wrong ones", () =>
  Effect.gen(function*() {
    const backend = yield* Effect.promise(() => startGitHttpBackend(join(root, "ada"), { username: "u", password: "secret" }))
    yield* Effect.addFinalizer(() => Effect.promise(backend.close))
    const git = yield* transfers()
    const url = `${backend.url}/base.git`
    yield* Effect.scoped(Effect.gen(function*() {
      const staged = yield* git.cloneRemote({ url, credentials: Option.some({ username: "u", password: "secret" }), addresses: [], mirror: false })
      yield* staged.place({ owner: "bo", name: "migrated" })
    }))
    const cloned = join(root, "bo", "migrated.git")
    assert.deepStrictEqual(yield* Effect.promise(() => sandbox.refs(cloned)), yield* Effect.promise(() => sandbox.refs(source)))
    assert.strictEqual((yield* Effect.promise(() => sandbox.git(["--git-dir", cloned, "remote"]))).trim(), "")
    assert.notInclude(yield* Effect.promise(() => import("node:fs/promises").then(({ readFile }) => readFile(join(cloned, "config"), "utf8"))), "secret")

    const refused = yield* Effect.flip(Effect.scoped(
      git.cloneRemote({ url, credentials: Option.some({ username: "u", password: "wrong" }), addresses: [], mirror: false })
    ))
    assert.strictEqual(refused._tag, "TransferFailure")
    assert.strictEqual(refused._tag === "TransferFailure" ? refused.reason : "", "auth")
    assert.notInclude(refused.message, "wrong")
  }).pipe(Effect.scoped))

it.effect("pins a host name to the checked address (the name itself never resolves)", () =>
  Effect.gen(function*() {
    const backend = yield* Effect.promise(() => startGitHttpBackend(join(root, "ada")))
    yield* Effect.addFinalizer(() => Effect.promise(backend.close))
    const git = yield* transfers()
    yield* Effect.scoped(Effect.gen(function*() {
      const staged = yield* git.cloneRemote({
        url: `http://pinned.invalid:${backend.port}/base.git`,
        credentials: Option.none(),
        addresses: ["127.0.0.1"],
        mirror: true
      })
      yield* staged.place({ owner: "bo", name: "pinned" })
    }))
    assert.isTrue(yield* exists(join(root, "bo", "pinned.git", "HEAD")))
    assert.deepStrictEqual(yield* git.resolveHost("pinned.invalid"), [])
    assert.deepStrictEqual(yield* git.resolveHost("127.0.0.1"), ["127.0.0.1"])
  }).pipe(Effect.scoped))

it.effect("aborts a clone that stalls or outgrows the size limit, leaving nothing", () =>
  Effect.gen(function*() {
    const backend = yield* Effect.promise(() => startGitHttpBackend(join(root, "ada")))
    yield* Effect.addFinalizer(() => Effect.promise(backend.close))
    const stalled = yield* Effect.flip(Effect.scoped(Effect.flatMap(transfers({ stallTimeoutMillis: 1500 }), (git) =>
      git.cloneRemote({ url: `${backend.url}/stall/base.git`, credentials: Option.none(), addresses: [], mirror: false }))))
    assert.strictEqual(stalled._tag === "TransferFailure" ? stalled.reason : stalled._tag, "stalled")
    const large = yield* Effect.flip(Effect.scoped(Effect.flatMap(transfers({ maxSize: 1024 }), (git) =>
      git.cloneRemote({ url: `${backend.url}/base.git`, credentials: Option.none(), addresses: [], mirror: false }))))
    assert.strictEqual(large._tag === "TransferFailure" ? large.reason : large._tag, "tooLarge")
    const leftovers = yield* Effect.promise(() => import("node:fs/promises").then(({ readdir }) => readdir(join(root, ".staging"))))
    assert.deepStrictEqual(leftovers, [])
  }).pipe(Effect.scoped))

it.effect("refuses redirects", () =>
  Effect.gen(function*() {
    const backend = yield* Effect.promise(() => startGitHttpBackend(join(root, "ada")))
    const redirector = createServer((request, response) => {
      response.writeHead(302, { location: `${backend.url}${request.url ?? "/"}` })
      response.end()
    })
    // A port with "401" in it: the refusal names the URL, and must not read as a refused login.
    const port = yield* Effect.promise(async () => {
      for (let candidate = 40100; ; candidate++) {
        const bound = await new Promise<number | undefined>((resolve) => {
          redirector.once("error", () => resolve(undefined))
          redirector.listen(candidate, "127.0.0.1", () => resolve((redirector.address() as AddressInfo).port)) // TCP: AddressInfo
        })
        if (bound !== undefined) return bound
      }
    })
    yield* Effect.addFinalizer(() => Effect.promise(async () => {
      redirector.close()
      await backend.close()
    }))
    const git = yield* transfers()
    const refused = yield* Effect.flip(Effect.scoped(
      git.cloneRemote({ url: `http://127.0.0.1:${port}/base.git`, credentials: Option.none(), addresses: [], mirror: false })
    ))
    assert.strictEqual(refused._tag === "TransferFailure" ? refused.reason : refused._tag, "failed")
  }).pipe(Effect.scoped))

it.effect("gives git an empty HOME and none of the server's environment (no ~/.netrc, no secrets)", () =>
  Effect.gen(function*() {
    const backend = yield* Effect.promise(() => startGitHttpBackend(join(root, "ada"), { username: "u", password: "secret" }))
    const home = sandbox.path("server-home")
    const seen = sandbox.path("seen-environment")
    // A real git behind a script that records the environment it was started with.
    const wrapper = sandbox.path("recording-git")
    yield* Effect.promise(async () => {
      const { chmod, writeFile } = await import("node:fs/promises")
      await mkdir(home, { recursive: true })
      await writeFile(join(home, ".netrc"), "machine 127.0.0.1 login u password secret\n")
      await writeFile(wrapper, `#!/bin/sh\nenv > '${seen}'\nexec git "$@"\n`)
      await chmod(wrapper, 0o755)
    })
    const saved = { HOME: process.env["HOME"], DATABASE_URL: process.env["DATABASE_URL"], KILN_SECRET_SETTING: process.env["KILN_SECRET_SETTING"] }
    const restore = (name: keyof typeof saved) => {
      const value = saved[name]
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    Object.assign(process.env, { HOME: home, DATABASE_URL: "postgres://kiln:hunter2@db/kiln", KILN_SECRET_SETTING: "hunter2" })
    yield* Effect.addFinalizer(() => Effect.promise(async () => {
      restore("HOME")
      restore("DATABASE_URL")
      restore("KILN_SECRET_SETTING")
      await backend.close()
    }))
    const git = yield* transfers({ gitBinary: wrapper })
    // The server user's ~/.netrc would log in for the caller; git must not find it.
    const refused = yield* Effect.flip(Effect.scoped(
      git.cloneRemote({ url: `${backend.url}/base.git`, credentials: Option.none(), addresses: [], mirror: false })
    ))
    assert.strictEqual(refused._tag === "TransferFailure" ? refused.reason : refused._tag, "auth")
    const environment = yield* Effect.promise(() => import("node:fs/promises").then(({ readFile }) => readFile(seen, "utf8")))
    const names = environment.split("\n").map((line) => line.slice(0, line.indexOf("=")))
    assert.notInclude(environment, "hunter2")
    assert.notInclude(names, "DATABASE_URL")
    assert.notInclude(names, "KILN_SECRET_SETTING")
    assert.include(environment.split("\n"), "HOME=/dev/null")
    assert.include(names, "PATH")
  }).pipe(Effect.scoped))
