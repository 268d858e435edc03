import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as fc from "fast-check"
import { RefListings } from "../src/RefListings.ts"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let server: Server
let base: string
let work: string
let commits: ReadonlyArray<string>
/** An annotated tag object in `work`. */
let workTag: string
let startedProcesses: () => number
let repositories = 0


const pkt = (text: string) => `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, "0")}${text}`

/** An `ls-refs` request as git 2.39 sends it for a fetch, with `prefixes` (none: every ref). */
const lsRefsRequest = (prefixes: ReadonlyArray<string>, peel = true) =>
  pkt("command=ls-refs\n") + pkt("agent=git/2.39.5\n") + pkt("object-format=sha1\n") + "0001" +
  (peel ? pkt("peel\n") : "") + pkt("symrefs\n") + pkt("unborn\n") + prefixes.map((prefix) => pkt(`ref-prefix ${prefix}\n`)).join("") + "0000"

const viaKiln = async (repository: string, request: string) => {
  const response = await fetch(`${base}/alice/${repository}/git-upload-pack`, {
    method: "POST",
    headers: { "Content-Type": "application/x-git-upload-pack-request", "Git-Protocol": "version=2" },
    body: request
  })
  assert.strictEqual(response.status, 200)
  return Buffer.from(await response.arrayBuffer()).toString("utf8")
}

const uploadPack = (gitdir: string, options: { readonly advertise: boolean; readonly protocol?: string; readonly input: string }) =>
  execFileSync("git", [
    "-c", "uploadpack.allowFilter=true",
    "-c", "uploadpack.allowAnySHA1InWant=true",
    "upload-pack", "--stateless-rpc", ...(options.advertise ? ["--advertise-refs"] : []), gitdir
  ], {
    env: { ...process.env, ...(options.protocol === undefined ? {} : { GIT_PROTOCOL: options.protocol }) },
    input: options.input
  }).toString("utf8")

/** What git itself answers, as the handler runs it. */
const gitsOwn = (gitdir: string, request: string) => uploadPack(gitdir, { advertise: false, protocol: "version=2", input: request })

type Service = "git-upload-pack" | "git-receive-pack"

/** The v0/v1 ref advertisement (`info/refs`) of `service` through the handler. */
const advertisementViaKiln = async (repository: string, protocol: string | undefined, service: Service = "git-upload-pack") => {
  const response = await fetch(`${base}/alice/${repository}/info/refs?service=${service}`, {
    headers: protocol === undefined ? {} : { "Git-Protocol": protocol }
  })
  assert.strictEqual(response.status, 200)
  return Buffer.from(await response.arrayBuffer()).toString("utf8")
}

/** git's own advertisement of `service`, after the preamble smart HTTP puts first. */
const gitsOwnAdvertisement = (gitdir: string, protocol: string | undefined, service: Service = "git-upload-pack") =>
  `${pkt(`# service=${service}\n`)}0000${
    service === "git-upload-pack"
      ? uploadPack(gitdir, { advertise: true, ...(protocol === undefined ? {} : { protocol }), input: "" })
      : execFileSync("git", ["receive-pack", "--stateless-rpc", "--advertise-refs", gitdir], {
        env: { ...process.env, ...(protocol === undefined ? {} : { GIT_PROTOCOL: protocol }) },
        input: ""
      }).toString("utf8")
  }`

const receiveAdvertisementViaKiln = (repository: string, protocol: string | undefined) =>
  advertisementViaKiln(repository, protocol, "git-receive-pack")

const gitsOwnReceiveAdvertisement = (gitdir: string, protocol: string | undefined) =>
  gitsOwnAdvertisement(gitdir, protocol, "git-receive-pack")

const newRepository = async () => {
  const name = `repository-${repositories++}`
  const gitdir = sandbox.path("repositories", "alice", `${name}.git`)
  await sandbox.git(["clone", "-q", "--bare", work, gitdir])
  const git = (args: ReadonlyArray<string>) => sandbox.run(["--git-dir", gitdir, ...args])
  // Something under each prefix the config may hide.
  await git(["tag", "-a", "-m", "tag", "v1", commits[0] ?? ""])
  await git(["update-ref", "refs/heads/a/b", commits[1] ?? ""])
  return { name, gitdir, git }
}

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const made = await sandbox.threeCommits("work")
  work = made.work
  commits = made.commits
  await sandbox.git(["tag", "-a", "-m", "work tag", "work-tag", commits[1] ?? ""], { cwd: work })
  workTag = (await sandbox.git(["rev-parse", "work-tag"], { cwd: work })).trim()
  // git, through a script that notes every process the handler starts.
  const counting = await sandbox.countingGit()
  startedProcesses = counting.started
  const handler = makeSmartHttpHandler({
    gitBinary: counting.binary,
    authorize: (request) => Promise.resolve({ kind: "allowed", path: sandbox.path("repositories", request.owner, `${request.repo}.git`) }),
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

describe("ref listings", () => {
  it("ls-refs answers are git's own, asked of git once and then given without a git process while no ref moves", async () => {
    const repository = await newRepository()
    const request = lsRefsRequest(["HEAD", "refs/heads/", "refs/tags/"])
    const before = startedProcesses()
    const first = await viaKiln(repository.name, request)
    assert.strictEqual(first, gitsOwn(repository.gitdir, request))
    assert.include(first, "peeled:")
    assert.strictEqual(startedProcesses(), before + 1)
    assert.strictEqual(await viaKiln(repository.name, request), first)
    assert.strictEqual(await viaKiln(repository.name, request), first)
    assert.strictEqual(startedProcesses(), before + 1)
    // Another request (other prefixes, no peeling) has an answer of its own.
    const other = lsRefsRequest(["refs/tags/"], false)
    assert.strictEqual(await viaKiln(repository.name, other), gitsOwn(repository.gitdir, other))
    assert.strictEqual(startedProcesses(), before + 2)
    // A config change alone (refs hidden from fetches) is a change too.
    await repository.git(["config", "uploadpack.hideRefs", "refs/tags"])
    const hidden = await viaKiln(repository.name, request)
    assert.notInclude(hidden, "refs/tags/v1")
    assert.strictEqual(hidden, gitsOwn(repository.gitdir, request))
  })

  it("follow every way refs, HEAD and the config change: after each, the answer is git's", async () => {
    type Step =
      | { readonly kind: "branch"; readonly name: string; readonly commit: number }
      | { readonly kind: "annotated tag"; readonly name: string; readonly commit: number }
      | { readonly kind: "delete"; readonly name: string }
      | { readonly kind: "head"; readonly target: string }
      | { readonly kind: "hide"; readonly prefix: string }
      | { readonly kind: "pack" }
      | { readonly kind: "push"; readonly refspecs: ReadonlyArray<string> }
    const refName = fc.constantFrom("refs/heads/main", "refs/heads/a/b", "refs/heads/z", "refs/tags/v1", "refs/tags/v2")
    // What a push sends: commits, or an annotated tag (which git refuses to put under refs/heads/).
    const pushed = fc.oneof(fc.nat(2).map((commit) => commits[commit] ?? ""), fc.constant(workTag))
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        // Pushes are carried forward without git: they come most often.
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("push" as const),
          refspecs: fc.uniqueArray(
            fc.oneof(fc.tuple(pushed, refName).map(([id, name]) => `+${id}:${name}`), refName.map((name) => `:${name}`)),
            { minLength: 1, maxLength: 3, selector: (spec) => spec.slice(spec.indexOf(":")) }
          )
        })
      },
      fc.record({ kind: fc.constant("branch" as const), name: refName, commit: fc.nat(2) }),
      fc.record({ kind: fc.constant("annotated tag" as const), name: fc.constantFrom("v1", "v2"), commit: fc.nat(2) }),
      fc.record({ kind: fc.constant("delete" as const), name: refName }),
      fc.record({ kind: fc.constant("head" as const), target: fc.constantFrom("refs/heads/main", "refs/heads/z", "refs/heads/unborn") }),
      fc.record({ kind: fc.constant("hide" as const), prefix: fc.constantFrom("refs/tags", "refs/heads/a") }),
      fc.constant({ kind: "pack" as const })
    )
    const listings = [
      ...[lsRefsRequest([]), lsRefsRequest(["HEAD", "refs/heads/"]), lsRefsRequest(["refs/heads/a", "refs/tags/"], false)].map((request) => ({
        viaKiln: (name: string) => viaKiln(name, request),
        gitsOwn: (gitdir: string) => gitsOwn(gitdir, request)
      })),
      ...[undefined, "version=1"].map((protocol) => ({
        viaKiln: (name: string) => advertisementViaKiln(name, protocol),
        gitsOwn: (gitdir: string) => gitsOwnAdvertisement(gitdir, protocol)
      }))
    ]
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const repository = await newRepository()
        for (const s of steps) {
          // Every answer is asked before the step and after it: an answer kept from before must not be given after.
          for (const listing of listings) await listing.viaKiln(repository.name)
          // Steps git refuses (a ref under a name that is now a directory, say) leave the refs as they were.
          if (s.kind === "branch") await repository.git(["update-ref", s.name, commits[s.commit] ?? ""])
          if (s.kind === "annotated tag") await repository.git(["tag", "-f", "-a", "-m", "tag", s.name, commits[s.commit] ?? ""])
          if (s.kind === "delete") await repository.git(["update-ref", "-d", "--no-deref", s.name])
          if (s.kind === "head") await repository.git(["symbolic-ref", "HEAD", s.target])
          if (s.kind === "hide") await repository.git(["config", "--add", "uploadpack.hideRefs", s.prefix])
          if (s.kind === "pack") await repository.git(["pack-refs", "--all"])
          // Pushes git refuses (deleting the branch HEAD names, say) change nothing.
          if (s.kind === "push") await sandbox.run(["push", "-q", `${base}/alice/${repository.name}.git`, ...s.refspecs], { cwd: work })
          for (const listing of listings) assert.strictEqual(await listing.viaKiln(repository.name), listing.gitsOwn(repository.gitdir))
        }
      }),
      { numRuns: 15 }
    )
  })

  it("a push carries the ls-refs answers kept before it: the fetch after it starts git for its pack alone", async () => {
    const repository = await newRepository()
    const requests = [lsRefsRequest([]), lsRefsRequest(["HEAD", "refs/heads/"]), lsRefsRequest(["refs/tags/"], false)]
    for (const request of requests) await viaKiln(repository.name, request)
    const pusher = sandbox.path(`ls-refs-pusher-${repositories}`)
    const fetcher = sandbox.path(`ls-refs-fetcher-${repositories}`)
    await sandbox.git(["clone", "-q", `${base}/alice/${repository.name}.git`, pusher])
    await sandbox.git(["clone", "-q", `${base}/alice/${repository.name}.git`, fetcher])
    // The fetcher's own listing, kept: a fetch of nothing new starts no git.
    await sandbox.git(["fetch", "-q", "origin"], { cwd: fetcher })
    const pushedCommit = await sandbox.commit(pusher, { "pushed.txt": "pushed\n" }, "pushed")
    // main (which HEAD names) moves, a branch is made and one deleted.
    await sandbox.git(["push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/new", ":refs/heads/a/b"], { cwd: pusher })
    const before = startedProcesses()
    for (const request of requests) assert.strictEqual(await viaKiln(repository.name, request), gitsOwn(repository.gitdir, request))
    assert.strictEqual(startedProcesses(), before)
    assert.include(await viaKiln(repository.name, requests[0] ?? ""), `${pushedCommit} HEAD symref-target:refs/heads/main`)
    // A real fetch after the push: git is started for the pack alone.
    await sandbox.git(["fetch", "-q", "origin"], { cwd: fetcher })
    assert.strictEqual(startedProcesses(), before + 1)
    assert.strictEqual((await sandbox.git(["rev-parse", "origin/new"], { cwd: fetcher })).trim(), pushedCommit)
    // A pushed tag would need its object read for `peeled:`: git is asked again.
    await sandbox.git(["tag", "-a", "-m", "pushed tag", "pushed-tag"], { cwd: pusher })
    await sandbox.git(["push", "-q", "origin", "pushed-tag"], { cwd: pusher })
    const afterTag = startedProcesses()
    assert.strictEqual(await viaKiln(repository.name, requests[0] ?? ""), gitsOwn(repository.gitdir, requests[0] ?? ""))
    assert.strictEqual(startedProcesses(), afterTag + 1)
  })

  it("v0/v1 advertisements too: git's own, then given without a git process while no ref moves", async () => {
    const repository = await newRepository()
    for (const protocol of [undefined, "version=1"]) {
      const before = startedProcesses()
      const first = await advertisementViaKiln(repository.name, protocol)
      assert.strictEqual(first, gitsOwnAdvertisement(repository.gitdir, protocol))
      assert.strictEqual(await advertisementViaKiln(repository.name, protocol), first)
      assert.strictEqual(startedProcesses(), before + 1)
    }
  })

  it.each(["2", "0"])("serve real git clients: ls-remote and fetch over protocol v%s see every change", async (version) => {
    const repository = await newRepository()
    const url = `${base}/alice/${repository.name}.git`
    const lsRemote = () => sandbox.git(["-c", `protocol.version=${version}`, "ls-remote", url])
    const listed = await lsRemote()
    assert.include(listed, `${commits[2]}\trefs/heads/main`)
    const before = startedProcesses()
    assert.strictEqual(await lsRemote(), listed)
    assert.strictEqual(startedProcesses(), before)
    await repository.git(["update-ref", "refs/heads/main", commits[1] ?? ""])
    assert.include(await lsRemote(), `${commits[1]}\trefs/heads/main`)
    const clone = sandbox.path(`clone-${repositories}`)
    await sandbox.git(["-c", `protocol.version=${version}`, "clone", "-q", url, clone])
    assert.strictEqual((await sandbox.git(["-C", clone, "rev-parse", "HEAD"])).trim(), commits[1])
  })
})

describe("push advertisements", () => {
  it("are git's own, asked of git once, and carried across a push without a git process", async () => {
    const repository = await newRepository()
    for (const protocol of [undefined, "version=1"]) {
      const before = startedProcesses()
      const first = await receiveAdvertisementViaKiln(repository.name, protocol)
      assert.strictEqual(first, gitsOwnReceiveAdvertisement(repository.gitdir, protocol))
      assert.strictEqual(await receiveAdvertisementViaKiln(repository.name, protocol), first)
      assert.strictEqual(startedProcesses(), before + 1)
    }
    // A push through the handler (v0, as git pushes): its own advertisement was kept, and after it
    // the next one is git's answer without asking git; the push itself is one receive-pack.
    const pusher = sandbox.path(`pusher-${repositories}`)
    await sandbox.git(["clone", "-q", `${base}/alice/${repository.name}.git`, pusher])
    await sandbox.commit(pusher, { "pushed.txt": "pushed\n" }, "pushed")
    await sandbox.git(["-c", "protocol.version=0", "push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/new", ":refs/heads/a/b"], { cwd: pusher })
    const before = startedProcesses()
    // git's default protocol (version 2 for fetches) pushes with v0 too.
    await sandbox.git(["push", "-q", "origin", "HEAD:refs/heads/second"], { cwd: pusher })
    assert.strictEqual(startedProcesses(), before + 1)
    const after = await receiveAdvertisementViaKiln(repository.name, undefined)
    assert.strictEqual(startedProcesses(), before + 1)
    assert.strictEqual(after, gitsOwnReceiveAdvertisement(repository.gitdir, undefined))
    assert.include(after, "refs/heads/second")
    assert.notInclude(after, "refs/heads/a/b")
  })

  it("follow pushes and every other way refs change: after each, the advertisement is git's", async () => {
    type Step =
      | { readonly kind: "push"; readonly refspecs: ReadonlyArray<string> }
      | { readonly kind: "update-ref"; readonly name: string; readonly commit: number }
      | { readonly kind: "delete"; readonly name: string }
      | { readonly kind: "pack" }
    const refName = fc.constantFrom("refs/heads/main", "refs/heads/a/b", "refs/heads/a-b", "refs/heads/z", "refs/tags/v1", "refs/tags/v2")
    const refspec = fc.oneof(
      // Creations and updates (forced: the commits are not always descendants), and deletions.
      fc.tuple(fc.nat(2), refName).map(([commit, name]) => `+${commits[commit] ?? ""}:${name}`),
      refName.map((name) => `:${name}`)
    )
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), refspecs: fc.uniqueArray(refspec, { minLength: 1, maxLength: 3, selector: (spec) => spec.slice(spec.indexOf(":")) }) }),
      fc.record({ kind: fc.constant("update-ref" as const), name: refName, commit: fc.nat(2) }),
      fc.record({ kind: fc.constant("delete" as const), name: refName }),
      fc.constant({ kind: "pack" as const })
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.constantFrom(undefined, "version=1"), async (steps, protocol) => {
        const repository = await newRepository()
        const url = `${base}/alice/${repository.name}.git`
        for (const s of steps) {
          await receiveAdvertisementViaKiln(repository.name, protocol)
          // Pushes git refuses (a ref under a name that is now a directory, a deletion of nothing) change nothing.
          if (s.kind === "push") {
            await sandbox.run([...(protocol === undefined ? [] : ["-c", "protocol.version=1"]), "push", "-q", url, ...s.refspecs], { cwd: work })
          }
          if (s.kind === "update-ref") await repository.git(["update-ref", s.name, commits[s.commit] ?? ""])
          if (s.kind === "delete") await repository.git(["update-ref", "-d", "--no-deref", s.name])
          if (s.kind === "pack") await repository.git(["pack-refs", "--all"])
          assert.strictEqual(await receiveAdvertisementViaKiln(repository.name, protocol), gitsOwnReceiveAdvertisement(repository.gitdir, protocol))
        }
      }),
      { numRuns: 15 }
    )
  })

  it("an empty repository's, and one whose first push creates its refs", async () => {
    const gitdir = sandbox.path("repositories", "alice", "empty.git")
    await sandbox.git(["init", "-q", "--bare", gitdir])
    const empty = await receiveAdvertisementViaKiln("empty", undefined)
    assert.include(empty, "capabilities^{}")
    assert.strictEqual(empty, gitsOwnReceiveAdvertisement(gitdir, undefined))
    await sandbox.git(["push", "-q", `${base}/alice/empty.git`, "HEAD:refs/heads/main"], { cwd: work })
    const before = startedProcesses()
    assert.strictEqual(await receiveAdvertisementViaKiln("empty", undefined), gitsOwnReceiveAdvertisement(gitdir, undefined))
    assert.strictEqual(startedProcesses(), before)
    await sandbox.git(["push", "-q", `${base}/alice/empty.git`, ":refs/heads/main"], { cwd: work })
    assert.strictEqual(await receiveAdvertisementViaKiln("empty", undefined), gitsOwnReceiveAdvertisement(gitdir, undefined))
  })

  it("of a repository without refs are another such repository's in the same state: a first push starts no git for it", async () => {
    const newEmpty = async (name: string, ...options: ReadonlyArray<string>) => {
      const gitdir = sandbox.path("repositories", "alice", `${name}.git`)
      await sandbox.git(["init", "-q", "--bare", ...options, gitdir])
      return gitdir
    }
    const lsRefs = lsRefsRequest(["HEAD", "refs/heads/"])
    const first = await newEmpty("first-new")
    assert.strictEqual(await receiveAdvertisementViaKiln("first-new", undefined), gitsOwnReceiveAdvertisement(first, undefined))
    assert.strictEqual(await viaKiln("first-new", lsRefs), gitsOwn(first, lsRefs))

    const second = await newEmpty("second-new")
    const before = startedProcesses()
    assert.strictEqual(await receiveAdvertisementViaKiln("second-new", undefined), gitsOwnReceiveAdvertisement(second, undefined))
    assert.strictEqual(await viaKiln("second-new", lsRefs), gitsOwn(second, lsRefs))
    assert.strictEqual(startedProcesses(), before)
    // Its own first push then carries the advertisement forward as for any repository.
    await sandbox.git(["push", "-q", `${base}/alice/second-new.git`, "HEAD:refs/heads/main"], { cwd: work })
    const afterPush = startedProcesses()
    assert.strictEqual(await receiveAdvertisementViaKiln("second-new", undefined), gitsOwnReceiveAdvertisement(second, undefined))
    assert.strictEqual(startedProcesses(), afterPush)

    // Another state is another answer: HEAD naming another branch, a config of its own, a protocol.
    const otherHead = await newEmpty("other-head", "-b", "trunk")
    assert.include(await viaKiln("other-head", lsRefs), "symref-target:refs/heads/trunk")
    assert.strictEqual(await viaKiln("other-head", lsRefs), gitsOwn(otherHead, lsRefs))
    const hidden = await newEmpty("hidden-new")
    await sandbox.git(["--git-dir", hidden, "config", "receive.advertisePushOptions", "false"])
    const beforeOwn = startedProcesses()
    assert.strictEqual(await receiveAdvertisementViaKiln("hidden-new", undefined), gitsOwnReceiveAdvertisement(hidden, undefined))
    assert.strictEqual(await receiveAdvertisementViaKiln("hidden-new", "version=1"), gitsOwnReceiveAdvertisement(hidden, "version=1"))
    assert.strictEqual(startedProcesses(), beforeOwn + 2)

    // A repository borrowing objects names the lender's refs: its answer is its own, asked of git each time.
    const lender = await newRepository()
    const borrower = await newEmpty("borrower-new")
    await writeFile(join(borrower, "objects", "info", "alternates"), `${join(lender.gitdir, "objects")}\n`)
    const beforeBorrower = startedProcesses()
    const borrowed = await receiveAdvertisementViaKiln("borrower-new", undefined)
    assert.include(borrowed, ".have")
    assert.strictEqual(borrowed, gitsOwnReceiveAdvertisement(borrower, undefined))
    assert.strictEqual(startedProcesses(), beforeBorrower + 1)
  })

  it("of a SHA-256 repository", async () => {
    const source = sandbox.path("sha256-work")
    await sandbox.git(["init", "-q", "--object-format=sha256", "-b", "main", source])
    await sandbox.commit(source, { "a.txt": "a\n" }, "first")
    const gitdir = sandbox.path("repositories", "alice", "sha256.git")
    await sandbox.git(["clone", "-q", "--bare", source, gitdir])
    assert.strictEqual(await receiveAdvertisementViaKiln("sha256", undefined), gitsOwnReceiveAdvertisement(gitdir, undefined))
    await sandbox.commit(source, { "b.txt": "b\n" }, "second")
    await sandbox.git(["push", "-q", `${base}/alice/sha256.git`, "main", "main:refs/heads/other"], { cwd: source })
    const before = startedProcesses()
    const after = await receiveAdvertisementViaKiln("sha256", undefined)
    assert.strictEqual(startedProcesses(), before)
    assert.strictEqual(after, gitsOwnReceiveAdvertisement(gitdir, undefined))
    await sandbox.git(["push", "-q", `${base}/alice/sha256.git`, ":refs/heads/other"], { cwd: source })
    assert.strictEqual(await receiveAdvertisementViaKiln("sha256", undefined), gitsOwnReceiveAdvertisement(gitdir, undefined))
  })

  it("name only refs: with alternates, the answer is not kept", async () => {
    const repository = await newRepository()
    const borrower = sandbox.path("repositories", "alice", "borrower.git")
    await sandbox.git(["clone", "-q", "--bare", "--shared", repository.gitdir, borrower])
    const before = startedProcesses()
    for (let i = 0; i < 2; i++) {
      assert.strictEqual(await receiveAdvertisementViaKiln("borrower", undefined), gitsOwnReceiveAdvertisement(borrower, undefined))
    }
    assert.strictEqual(startedProcesses(), before + 2)
  })
})

describe("memory", () => {
  const answered = (answer: string) => () => Promise.resolve({ answer: Buffer.from(answer), complete: true })

  it("a request larger than any git sends is answered, and not kept", async () => {
    const { gitdir } = await newRepository()
    const listings = new RefListings()
    const request = Buffer.from(lsRefsRequest([`refs/nothing/${"x".repeat(60_000)}`]))
    let asked = 0
    const ask = () => {
      asked++
      return answered("0000")()
    }
    for (let i = 0; i < 3; i++) assert.strictEqual((await listings.answer(gitdir, "version=2", request, ask)).toString(), "0000")
    assert.strictEqual(asked, 3)
    assert.strictEqual(listings.size, 0)
  })

  it("requests count against the budget: a client naming a new one each time keeps memory bounded", async () => {
    // A client sent ~60 KB ls-refs requests, each new, whose answers were empty: the budget counted
    // the answers alone, and 3,200 requests held ~400 MB of requests and their keys.
    const { gitdir } = await newRepository()
    const listings = new RefListings()
    const requests = 4_000
    for (let i = 0; i < requests; i++) {
      const request = Buffer.from(lsRefsRequest([`refs/nothing/${i}/${"x".repeat(7_000)}`]))
      await listings.answer(gitdir, "version=2", request, answered("0000"))
    }
    // Each kept entry holds its request (~7 KB) and its key (twice that, at most): at most 16 MiB of them.
    const held = listings.size * 7_000
    assert.isBelow(held, 16 * 1024 * 1024)
    assert.isAbove(listings.size, 0)
  })
})
