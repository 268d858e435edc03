import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { setTimeout as sleep } from "node:timers/promises"
import { Effect } from "effect"
import { ZeroId } from "@kiln/domain/git/RefUpdate"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { makeGitStreams } from "../src/GitStreams.ts"
import { pktLine } from "../src/PktLine.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let path: string

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const root = sandbox.path("data")
  await Effect.runPromise(Effect.flatMap(makeGitStorage(root), (storage) => storage.create({ owner: "alice", name: "repo" }, { defaultBranch: "main" })))
  path = repositoryPath(root, { owner: "alice", name: "repo" })
})

afterAll(() => sandbox.dispose())

/** What receive-pack is receiving into, until it accepts or refuses it (its quarantine). */
const quarantines = () => readdirSync(join(path, "objects")).filter((name) => name.startsWith("tmp_objdir-incoming-"))

it("a push over a stream whose client goes away mid-pack leaves nothing of it in the repository", async () => {
  const work = await sandbox.workTree("work")
  const commit = await sandbox.commit(work, { "noise.txt": randomBytes(300_000).toString("base64") }, "noise")
  const pack = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile("git", ["pack-objects", "--stdout", "--revs", "-q"], { cwd: work, env: sandbox.env, encoding: "buffer" }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error))
    child.stdin?.end(`${commit}\n`)
  })
  const input = new PassThrough()
  const output = new PassThrough().resume()
  const errors = new PassThrough().resume()
  const leaving = new AbortController()
  const streams = makeGitStreams({ afterPush: async () => {}, onError: () => {} })
  const served = streams.serve({
    service: "git-receive-pack",
    owner: "alice",
    repo: "repo",
    path,
    protocol: undefined,
    pusher: undefined,
    input,
    output,
    errors,
    signal: leaving.signal
  })
  // Over SSH receive-pack advertises first; the client's command and half its pack follow.
  input.write(`${pktLine(`${ZeroId} ${commit} refs/heads/main\0report-status\n`)}0000`)
  input.write(pack.subarray(0, pack.length / 2))
  for (let waited = 0; waited < 5_000 && quarantines().length === 0; waited += 20) await sleep(20)
  assert.isNotEmpty(quarantines(), "git never started receiving the pack")
  // The client goes: git was killed, and left what it had received in the repository for good.
  leaving.abort()
  await served
  for (let waited = 0; waited < 5_000 && quarantines().length > 0; waited += 50) await sleep(50)
  assert.deepStrictEqual(quarantines(), [])
  assert.isFalse((await sandbox.refs(path)).has("refs/heads/main"))
}, 30_000)
