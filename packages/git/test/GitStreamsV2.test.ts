import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { PassThrough } from "node:stream"
import { Effect } from "effect"
import { SERVED_GIT_SETTINGS } from "../src/GitEnvironment.ts"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { makeGitStreams } from "../src/GitStreams.ts"
import { KeptListings } from "../src/KeptListings.ts"
import { pktLine } from "../src/PktLine.ts"
import { repositoryPath } from "../src/RepositoryPaths.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let path: string
let commits: ReadonlyArray<string>
let work: string
let started: () => number
let streams: ReturnType<typeof makeGitStreams>

const PROTOCOL = "version=2"

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const root = sandbox.path("data")
  await Effect.runPromise(Effect.flatMap(makeGitStorage(root), (storage) => storage.create({ owner: "alice", name: "repo" }, { defaultBranch: "main" })))
  path = repositoryPath(root, { owner: "alice", name: "repo" })
  ;({ work, commits } = await sandbox.threeCommits("work"))
  await sandbox.git(["push", "-q", path, `${commits[1]}:refs/heads/main`, `${commits[0]}:refs/heads/old`], { cwd: work })
  const counting = await sandbox.countingGit()
  started = counting.started
  streams = makeGitStreams({ gitBinary: counting.binary, listings: new KeptListings(), afterPush: async () => {}, onError: () => {} })
})

afterAll(() => sandbox.dispose())

const lsRefs = (...prefixes: ReadonlyArray<string>) =>
  `${pktLine("command=ls-refs\n")}${pktLine("object-format=sha1\n")}0001${pktLine("peel\n")}${pktLine("symrefs\n")}${pktLine("unborn\n")}` +
  `${prefixes.map((prefix) => pktLine(`ref-prefix ${prefix}\n`)).join("")}0000`
const fetchOf = (want: string, have?: string) =>
  `${pktLine("command=fetch\n")}${pktLine("object-format=sha1\n")}0001${pktLine("thin-pack\n")}${pktLine("ofs-delta\n")}` +
  `${pktLine(`want ${want}\n`)}${have === undefined ? "" : pktLine(`have ${have}\n`)}${pktLine("done\n")}0000`

/** What Kiln's session writes for `input` (in the pieces given), and its exit status. */
const viaKiln = async (pieces: ReadonlyArray<string | Buffer>, service: "git-upload-pack" | "git-receive-pack" = "git-upload-pack") => {
  const input = new PassThrough()
  const output = new PassThrough()
  const errors = new PassThrough()
  const out: Array<Buffer> = []
  output.on("data", (chunk: Buffer) => out.push(chunk))
  errors.resume()
  const served = streams.serve({
    service, owner: "alice", repo: "repo", path, protocol: PROTOCOL, pusher: undefined, input, output, errors, signal: new AbortController().signal
  })
  for (const piece of pieces) {
    input.write(piece)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  input.end()
  const code = await served
  return { code, output: Buffer.concat(out) }
}

/** What git's own stateful upload-pack, as Kiln runs it, writes for the same input, whole. */
const gitsOwn = (input: string) =>
  new Promise<Buffer>((resolve, reject) => {
    const child = execFile("git", [...SERVED_GIT_SETTINGS, "upload-pack", path], { env: { ...sandbox.env, GIT_PROTOCOL: PROTOCOL }, encoding: "buffer" }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error))
    child.stdin?.end(input)
  })

describe("protocol v2 upload-pack over a stream, from kept listings", () => {
  it("answers as git does, and a session that only lists refs starts no git once its listings are kept", async () => {
    const sessions = [
      [lsRefs("HEAD", "refs/heads/")],
      [lsRefs("HEAD", "refs/heads/"), "0000"],
      // Split mid-line, the way a network may deliver it.
      [lsRefs().slice(0, 7), lsRefs().slice(7), lsRefs("refs/tags/")],
      ["0000"],
      []
    ]
    for (const session of sessions) assert.deepStrictEqual((await viaKiln(session)).output, await gitsOwn(session.join("")))
    // Partial clones are offered, as by the git Kiln runs for a fetch.
    assert.match((await viaKiln([])).output.toString("latin1"), /fetch=[^\n]*filter/)
    const before = started()
    for (const session of sessions) {
      const { code, output } = await viaKiln(session)
      assert.strictEqual(code, 0)
      assert.deepStrictEqual(output, await gitsOwn(session.join("")))
    }
    assert.strictEqual(started(), before)
  })

  it("hands a fetch to one git, with everything from the fetch on; git's own advertisement is not repeated", async () => {
    const listing = lsRefs("HEAD", "refs/heads/")
    await viaKiln([listing])
    const before = started()
    const session = [listing, fetchOf(commits[1] ?? "", commits[0])]
    const { code, output } = await viaKiln(session)
    assert.strictEqual(code, 0)
    assert.strictEqual(started(), before + 1)
    const own = await gitsOwn(session.join(""))
    // The pack's bytes are git's to choose; everything before it is byte for byte git's.
    const packfile = Buffer.from("packfile\n")
    assert.deepStrictEqual(output.subarray(0, output.indexOf(packfile)), own.subarray(0, own.indexOf(packfile)))
    assert.isAbove(output.indexOf(packfile), 0)
  })

  it("gives git what it cannot answer as it came: an unknown command, bytes that are not pkt-lines", async () => {
    for (const session of [[pktLine("command=nonsense\n"), "0000"], ["zzzz not a pkt-line"], [lsRefs().slice(0, 20)]]) {
      const kiln = await viaKiln(session)
      const own = await gitsOwn(session.join("")).catch(() => undefined)
      assert.notStrictEqual(kiln.code, 0, session.join(""))
      if (own !== undefined) assert.deepStrictEqual(kiln.output, own)
    }
  })

  it("a push over the stream carries the kept ls-refs forward: the next listing starts no git and shows the push", async () => {
    const listing = lsRefs("HEAD", "refs/heads/")
    await viaKiln([listing])
    // receive-pack's v0 exchange: the advertisement first, then the command and the pack.
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const child = execFile("git", ["pack-objects", "--stdout", "--revs", "-q"], { cwd: work, env: sandbox.env, encoding: "buffer" }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error))
      child.stdin?.end(`${commits[2]}\n^${commits[1]}\n`)
    })
    const input = new PassThrough()
    const output = new PassThrough().resume()
    const errors = new PassThrough().resume()
    const pushed = streams.serve({
      service: "git-receive-pack", owner: "alice", repo: "repo", path, protocol: undefined, pusher: undefined, input, output, errors, signal: new AbortController().signal
    })
    input.end(Buffer.concat([Buffer.from(`${pktLine(`${commits[1]} ${commits[2]} refs/heads/main\0report-status\n`)}0000`), pack]))
    assert.strictEqual(await pushed, 0)
    const before = started()
    const after = await viaKiln([listing])
    assert.strictEqual(started(), before)
    assert.deepStrictEqual(after.output, await gitsOwn(listing))
    assert.include(after.output.toString("latin1"), `${commits[2]} HEAD symref-target:refs/heads/main`)
  })
})
