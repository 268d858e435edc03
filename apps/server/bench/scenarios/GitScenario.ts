/**
 * Issue 5, item 6: git over HTTP through Kiln against git on the file system, and the branch list.
 * A generated repository (2,000 files, 300 commits, about 30 MB of incompressible text, one pack)
 * is pushed to Kiln, through a bare smart-HTTP relay (bareGitHttpServer.ts: git over HTTP and
 * nothing else) and to an empty bare repository on disk, then cloned from Kiln over loopback
 * and with `git clone file://` from Kiln's own copy on disk (the same bare repository); medians of
 * several runs. A second repository gets 500 branches, and `GET /branches?limit=50` is loaded.
 * Targets: clone through Kiln ≤ 1.5× the file-system clone; branch list p50 < 20 ms.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { ChildServer } from "../ChildServer.ts"
import * as InspectorProfiler from "../InspectorProfiler.ts"
import { startBareGitHttp, startBareJson } from "../Baselines.ts"
import { describePausedRequests, measurePausedRequests } from "../PausedRequests.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { runLoad } from "../LoadGenerator.ts"
import { childProcesses, type OwnAndChildren, sampleOwnAndChildren, sampleProcess } from "../ThreadCpu.ts"
import { below, type BenchSettings, type DatabaseReport, type Scenario, type TargetCheck, validity } from "../Scenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

/** What a generated repository holds: its first commit adds `files` files of `fileBytes` each. */
interface RepositoryShape {
  readonly files: number
  readonly commits: number
  readonly fileBytes: number
}

const STANDARD: RepositoryShape = { files: 2_000, commits: 300, fileBytes: 10_000 }
/**
 * `--git-large`: issue 30 asks whether a push's own cost grows with its repository (the size
 * measurement walks it). 10,000 files of base64 noise, which zlib packs to ~3/4: ~1 GB on disk.
 */
const LARGE: RepositoryShape = { files: 10_000, commits: 10, fileBytes: 134_000 }
/** The small operations change files among the first this many, which every shape has. */
const FILES = STANDARD.files
const CHANGED_PER_COMMIT = 6
const CHANGE_BYTES = 6_000
const BRANCHES = 500
const RUNS = 7
const LIST_CONNECTIONS = 4
const SMALL_COMMITS = 3

export const gitEnv = (home: string): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_"))),
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C"
})

const git = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string>, options: { cwd?: string; input?: NodeJS.ReadableStream } = {}) =>
  new Promise<string>((resolve, reject) => {
    const child = ChildProcess.spawn("git", [...args], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    if (options.input === undefined) child.stdin.end()
    else options.input.pipe(child.stdin)
    child.on("error", reject)
    child.on("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString("utf8"))
        : reject(new Error(`git ${args.slice(0, 3).join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").slice(-2_000)}`)))
  })

/** Deterministic incompressible text: xorshift bytes, base64 (so it stays text, as source files are). */
const noise = (seed: number, bytes: number): string => {
  let state = seed * 2_654_435_761 >>> 0 || 1
  const raw = Buffer.alloc(Math.ceil(bytes * 3 / 4))
  for (let i = 0; i < raw.length; i++) {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    raw[i] = state & 0xff
  }
  return `${raw.toString("base64").slice(0, bytes)}\n`
}

/** The `git fast-import` stream of the generated history, written to `file`. */
const writeHistory = (file: string, shape: RepositoryShape) => {
  const out = Fs.openSync(file, "w")
  const write = (text: string) => Fs.writeSync(out, text)
  const data = (content: string) => write(`data ${Buffer.byteLength(content)}\n${content}\n`)
  const path = (i: number) => `src/module-${i % 40}/file-${i}.txt`
  for (let commit = 0; commit < shape.commits; commit++) {
    write(`commit refs/heads/main\nmark :${commit + 1}\n`)
    write(`committer Bench <bench@bench.invalid> ${1_700_000_000 + commit * 60} +0000\n`)
    data(`change ${commit}\n`)
    if (commit > 0) write(`from :${commit}\n`)
    const files = commit === 0
      ? Array.from({ length: shape.files }, (_, i) => ({ i, bytes: shape.fileBytes }))
      : Array.from({ length: CHANGED_PER_COMMIT }, (_, k) => ({ i: (commit * 97 + k * 331) % shape.files, bytes: CHANGE_BYTES }))
    for (const { i, bytes } of files) {
      write(`M 100644 inline ${path(i)}\n`)
      data(noise(commit * shape.files + i + 1, bytes))
    }
  }
  Fs.closeSync(out)
}

/** The generated bare repository in one pack, as a served repository usually is. */
export const generate = async (directory: string, env: NodeJS.ProcessEnv, shape: RepositoryShape = STANDARD, name = "source") => {
  const source = Path.join(directory, `${name}.git`)
  await git(env, ["init", "-q", "--bare", "-b", "main", source])
  const stream = Path.join(directory, `${name}.fi`)
  writeHistory(stream, shape)
  await git(env, ["fast-import", "--quiet"], { cwd: source, input: Fs.createReadStream(stream) })
  Fs.rmSync(stream)
  await git(env, ["repack", "-a", "-d", "-q"], { cwd: source })
  await git(env, ["gc", "-q", "--prune=now"], { cwd: source })
  return source
}

const directoryBytes = (path: string): number =>
  Fs.readdirSync(path, { withFileTypes: true }).reduce((sum, entry) => {
    const child = Path.join(path, entry.name)
    return sum + (entry.isDirectory() ? directoryBytes(child) : entry.isFile() ? Fs.statSync(child).size : 0)
  }, 0)

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await run()
  return performance.now() - started
}

const createRepository = async (url: string, token: string, name: string) => {
  const response = await fetch(`${url}/api/v1/user/repos`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name })
  })
  if (response.status !== 201) throw new Error(`creating ${name} answered ${response.status}: ${await response.text()}`)
}

interface OperationCpu {
  /** Milliseconds summed over the rounds: the server's and its launcher's own CPU (Kiln's). */
  server: number
  /** The kernel's part of `server`. */
  serverSystem: number
  /** Of `server`: the server's main thread (its event loop), its other threads (libuv's pool, V8's helpers), the launcher. */
  mainThread: number
  otherThreads: number
  launcher: number
  git: number
  client: number
  wall: number
}

const noCpu = (): OperationCpu => ({ server: 0, serverSystem: 0, mainThread: 0, otherThreads: 0, launcher: 0, git: 0, client: 0, wall: 0 })

/** How many rounds run first, unmeasured, and what runs between them and the measured rounds. */
export interface WarmUp {
  readonly rounds: number
  /** E.g. starting a profiler: the measured rounds alone are profiled. */
  readonly after?: () => Promise<void>
}

/**
 * A working clone of `source` pushes SMALL_COMMITS new commits to `remotes.push` (which already
 * holds `source`'s history) and a second clone fetches them from `remotes.fetch` (the same
 * repository), then fetches again (nothing new), `rounds` times; the server's own and its
 * children's CPU are read around each operation, as is this process's children's (the client).
 *
 * The `warmUp` rounds before them are measured apart (`cold`): a server that has just started runs
 * its request path's code unoptimized until each function has run a few hundred times (V8 tiers up
 * to Maglev after ~400 calls), and its first pushes cost up to twice what a running server's do.
 */
export const smallOperations = async (
  env: NodeJS.ProcessEnv,
  source: string,
  directory: string,
  remotes: { readonly push: string; readonly fetch: string },
  serverPid: number,
  rounds: number,
  warmUp: WarmUp = { rounds: 0 }
) => {
  const remote = remotes.push
  const pusher = Path.join(directory, "pusher")
  const fetcher = Path.join(directory, "fetcher")
  await git(env, ["clone", "-q", `file://${source}`, pusher])
  await git(env, ["clone", "-q", `file://${source}`, fetcher])
  await git(env, ["remote", "set-url", "origin", remotes.fetch], { cwd: fetcher })
  // The same pushes into a bare repository on disk (git's local transport): the client's CPU then
  // includes the receiving git's, the whole cost of a push without Kiln.
  const onDisk = Path.join(directory, "on-disk.git")
  await git(env, ["clone", "-q", "--bare", `file://${source}`, onDisk])
  const measured = { diskPush: noCpu(), push: noCpu(), fetch: noCpu(), idleFetch: noCpu() }
  const cold = { diskPush: noCpu(), push: noCpu(), fetch: noCpu(), idleFetch: noCpu() }
  // The server and its helper processes (the git launcher, a Node process that starts git for it):
  // their own CPU is Kiln's, their reaped children's is git's.
  // A profiled server's (--cpu-prof) profiler thread is the measurement's cost, not Kiln's: left out.
  type ServerSample = OwnAndChildren & { readonly launcher: number; readonly mainThread: number }
  const sampleServer = (): ServerSample | undefined => {
    const own = sampleOwnAndChildren(serverPid)
    const threads = sampleProcess(serverPid)
    const mainThread = threads?.get("main thread")
    if (own === undefined || mainThread === undefined) return undefined
    const profiler = threads?.get("profiler thread") ?? 0
    const launchers = childProcesses(serverPid, "GitLauncherProcess").map(sampleOwnAndChildren)
    return launchers.reduce<ServerSample>((sum, sample) =>
      sample === undefined ? sum : {
        ...sum,
        own: sum.own + sample.own,
        ownSystem: sum.ownSystem + sample.ownSystem,
        children: sum.children + sample.children,
        launcher: sum.launcher + sample.own
      }, { ...own, own: own.own - profiler, launcher: 0, mainThread })
  }
  const measure = async (into: OperationCpu, run: () => Promise<unknown>) => {
    const server = sampleServer()
    const client = sampleOwnAndChildren("self")
    const started = performance.now()
    await run()
    into.wall += performance.now() - started
    // git's --advertise-refs answer can end before the process is reaped (and counted).
    await new Promise((resolve) => setTimeout(resolve, 30))
    const serverAfter = sampleServer()
    const clientAfter = sampleOwnAndChildren("self")
    if (server === undefined || serverAfter === undefined || client === undefined || clientAfter === undefined) return
    into.server += (serverAfter.own - server.own) * 1000
    into.serverSystem += (serverAfter.ownSystem - server.ownSystem) * 1000
    into.mainThread += (serverAfter.mainThread - server.mainThread) * 1000
    into.launcher += (serverAfter.launcher - server.launcher) * 1000
    into.otherThreads += ((serverAfter.own - serverAfter.launcher - serverAfter.mainThread) - (server.own - server.launcher - server.mainThread)) * 1000
    into.git += (serverAfter.children - server.children) * 1000
    into.client += (clientAfter.children - client.children) * 1000
  }
  const identity = ["-c", "user.name=Bench", "-c", "user.email=bench@bench.invalid"]
  for (let round = 0; round < warmUp.rounds + rounds; round++) {
    if (round === warmUp.rounds) await warmUp.after?.()
    const { diskPush, push, fetch, idleFetch } = round < warmUp.rounds ? cold : measured
    for (let commit = 0; commit < SMALL_COMMITS; commit++) {
      const n = round * SMALL_COMMITS + commit
      const i = (n * 131) % FILES
      const file = Path.join(pusher, "src", `module-${i % 40}`, `file-${i}.txt`)
      Fs.writeFileSync(file, noise(1_000_000 + n, CHANGE_BYTES))
      await git(env, [...identity, "commit", "-q", "-a", "-m", `small ${n}`], { cwd: pusher })
    }
    await measure(push, () => git(env, ["push", "-q", remote, "HEAD:refs/heads/main"], { cwd: pusher }))
    await measure(diskPush, () => git(env, ["push", "-q", `file://${onDisk}`, "HEAD:refs/heads/main"], { cwd: pusher }))
    await measure(fetch, () => git(env, ["fetch", "-q", "origin"], { cwd: fetcher }))
    // Then again with nothing new (a CI job polling, a mirror checking): only the refs are listed.
    await measure(idleFetch, () => git(env, ["fetch", "-q", "origin"], { cwd: fetcher }))
  }
  return { ...measured, cold, warmUpRounds: warmUp.rounds }
}

/** The report of `smallOperations`: a line per operation, and the ratios the targets bound. */
export const reportSmallOperations = (small: Awaited<ReturnType<typeof smallOperations>>, rounds: number) => {
  const perOp = (ms: number) => (ms / rounds).toFixed(1)
  const operations = [
    [`push of ${SMALL_COMMITS} new commits`, small.push],
    [`fetch of ${SMALL_COMMITS} new commits`, small.fetch],
    ["fetch of nothing new", small.idleFetch]
  ] as const
  const after = small.warmUpRounds > 0 ? ` after ${small.warmUpRounds} warm-up rounds` : ""
  const lines = operations.map(([label, cpu]) =>
    `${label} (${rounds} rounds${after}): Kiln CPU (server and git launcher) ${perOp(cpu.server)} ms, ` +
    `git CPU ${perOp(cpu.git)} ms per operation, ×${(cpu.server / cpu.git).toFixed(2)} ` +
    `(Kiln's: main thread ${perOp(cpu.mainThread)}, other threads ${perOp(cpu.otherThreads)}, launcher ${perOp(cpu.launcher)}; ` +
    `kernel ${perOp(cpu.serverSystem)}); ` +
    `client ${perOp(cpu.client)} ms, wall ${perOp(cpu.wall)} ms`)
  // All the CPU of a push through Kiln (client, Kiln, git) against a push to the file system (client and its git).
  const pushCpuRatio = (small.push.client + small.push.server + small.push.git) / small.diskPush.client
  // The same without any of Kiln's CPU: the bound no work in Kiln can go below (a remote client's git
  // and a served receive-pack cost more than a push between two directories).
  const pushCpuFloor = (small.push.client + small.push.git) / small.diskPush.client
  lines.push(`push of ${SMALL_COMMITS} new commits to the file system: ${perOp(small.diskPush.client)} ms CPU, ` +
    `${perOp(small.diskPush.wall)} ms wall; through Kiln all CPU (client + Kiln + git) ×${pushCpuRatio.toFixed(2)}, ` +
    `without Kiln's own (client + git) ×${pushCpuFloor.toFixed(2)}`)
  if (small.warmUpRounds > 0) {
    const { cold } = small
    const coldOp = (cpu: OperationCpu) =>
      `Kiln ${(cpu.server / small.warmUpRounds).toFixed(1)} ms, git ${(cpu.git / small.warmUpRounds).toFixed(1)} ms (×${(cpu.server / cpu.git).toFixed(2)})`
    lines.push(`the ${small.warmUpRounds} warm-up rounds (a just-started server), CPU per operation: push ${coldOp(cold.push)}; ` +
      `fetch ${coldOp(cold.fetch)}; nothing new Kiln ${(cold.idleFetch.server / small.warmUpRounds).toFixed(1)} ms`)
  }
  return {
    lines,
    pushKilnMs: small.push.server / rounds,
    pushRatio: small.push.server / small.push.git,
    fetchRatio: small.fetch.server / small.fetch.git,
    pushCpuRatio
  }
}

const runOn = async (
  kind: BenchDatabase.DatabaseKind,
  settings: BenchSettings,
  source: string,
  large: string | undefined,
  work: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void
): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  let server: ChildServer | undefined
  try {
    // Profiled (--cpu-prof), the server is profiled through its inspector around the small operations
    // alone: the clones before them and the branch list's load after would bury git's path.
    const { cpuProfileDir } = settings
    const logFile = Path.join(database.dataDir, "kiln.log")
    server = await startKiln({ database, admin, logFile, nodeFlags: cpuProfileDir === undefined ? [] : [InspectorProfiler.inspectFlag] })
    const token = await createToken(server.url, admin, "git-bench")
    const remote = (name: string) => {
      const url = new URL(`${server?.url}/${admin.username}/${name}.git`)
      url.username = admin.username
      url.password = token
      return url.toString()
    }
    const anonymousRemote = (name: string) => {
      const url = new URL(remote(name))
      url.username = ""
      url.password = ""
      return url.toString()
    }
    const scratch = (label: string) => Fs.mkdtempSync(Path.join(work, `${kind}-${label}-`))

    // Pushes: the whole history to an empty repository, through Kiln and into a bare repository on disk.
    // As many as the clones: the first runs on a server that has just started (its code not yet
    // optimized, its launcher not yet started) and takes ~1.5× a later one; of 3, the median was
    // always the slower of the other two.
    // The third is through a bare smart-HTTP relay (bareGitHttpServer.ts): what carrying git over HTTP
    // costs on this machine whoever serves it.
    const kilnPushes: Array<number> = []
    const barePushes: Array<number> = []
    const diskPushes: Array<number> = []
    const bareRoot = scratch("bare-http")
    const bareGit = await startBareGitHttp(bareRoot)
    try {
      for (let run = 0; run < RUNS; run++) {
        await createRepository(server.url, token, `bench-${run}`)
        kilnPushes.push(await timed(() => git(env, ["push", "-q", remote(`bench-${run}`), "refs/heads/*:refs/heads/*"], { cwd: source })))
        await git(env, ["init", "-q", "--bare", Path.join(bareRoot, `bench-${run}.git`)])
        barePushes.push(await timed(() => git(env, ["push", "-q", `${bareGit.url}/bench-${run}.git`, "refs/heads/*:refs/heads/*"], { cwd: source })))
        const target = Path.join(scratch("push"), "target.git")
        await git(env, ["init", "-q", "--bare", target])
        diskPushes.push(await timed(() => git(env, ["push", "-q", `file://${target}`, "refs/heads/*:refs/heads/*"], { cwd: source })))
      }
    } finally {
      await bareGit.stop()
    }
    log(`[${kind}] push: Kiln ${median(kilnPushes).toFixed(0)} ms, bare smart HTTP ${median(barePushes).toFixed(0)} ms, ` +
      `file system ${median(diskPushes).toFixed(0)} ms`)

    // Clones of the same bare repository: over loopback through Kiln (anonymous, public) and from disk.
    const served = Path.join(database.dataDir, "repositories", admin.username, "bench-0.git")
    const kilnClones: Array<number> = []
    const diskClones: Array<number> = []
    for (let run = 0; run < RUNS; run++) {
      const anonymous = new URL(remote("bench-0"))
      anonymous.username = ""
      anonymous.password = ""
      kilnClones.push(await timed(() => git(env, ["clone", "-q", "--bare", anonymous.toString(), Path.join(scratch("clone"), "c.git")])))
      diskClones.push(await timed(() => git(env, ["clone", "-q", "--bare", `file://${served}`, Path.join(scratch("clone"), "c.git")])))
    }
    const cloneRatio = median(kilnClones) / median(diskClones)
    log(`[${kind}] clone: Kiln ${median(kilnClones).toFixed(0)} ms, file system ${median(diskClones).toFixed(0)} ms (×${cloneRatio.toFixed(2)})`)
    notes.push(
      `repository: ${STANDARD.files} files, ${STANDARD.commits} commits, ${(directoryBytes(source) / 1e6).toFixed(1)} MB on disk (one pack)`,
      `push (median of ${RUNS}): Kiln ${median(kilnPushes).toFixed(0)} ms [${kilnPushes.map((ms) => ms.toFixed(0)).join(", ")}], ` +
        `file system ${median(diskPushes).toFixed(0)} ms [${diskPushes.map((ms) => ms.toFixed(0)).join(", ")}], ` +
        `×${(median(kilnPushes) / median(diskPushes)).toFixed(2)}; through a bare smart-HTTP relay (node:http piping ` +
        `to git receive-pack, nothing else) ${median(barePushes).toFixed(0)} ms [${barePushes.map((ms) => ms.toFixed(0)).join(", ")}], ` +
        `×${(median(barePushes) / median(diskPushes)).toFixed(2)} of the file system; Kiln ÷ the bare relay ×${(median(kilnPushes) / median(barePushes)).toFixed(2)}`,
      `clone (median of ${RUNS}): Kiln ${median(kilnClones).toFixed(0)} ms [${kilnClones.map((ms) => ms.toFixed(0)).join(", ")}], ` +
        `file system ${median(diskClones).toFixed(0)} ms [${diskClones.map((ms) => ms.toFixed(0)).join(", ")}], ×${cloneRatio.toFixed(2)}`
    )

    // CPU per small operation: the server's own (its event loop, database client, PGlite when
    // embedded) against its git children's (receive-pack, upload-pack and what they run), from
    // /proc: CPU time is steady on a shared machine where wall time is not.
    const profiler = cpuProfileDir === undefined ? undefined : await InspectorProfiler.connect(logFile, server.pid)
    const small = await smallOperations(env, source, scratch("small"), { push: remote("bench-0"), fetch: anonymousRemote("bench-0") }, server.pid, settings.gitRounds, {
      rounds: settings.gitWarmUpRounds,
      after: async () => profiler?.start()
    })
    if (profiler !== undefined && cpuProfileDir !== undefined) {
      await profiler.stop(Path.join(cpuProfileDir, `git-${kind}-small${InspectorProfiler.operationsSuffix}`))
      profiler.close()
    }
    const report = reportSmallOperations(small, settings.gitRounds)
    for (const line of report.lines) {
      log(`[${kind}] ${line}`)
      notes.push(line)
    }
    // The same small operations on a ~1 GB repository (--git-large): does Kiln's own part grow with it?
    const largeTargets: Array<TargetCheck> = []
    if (large !== undefined) {
      const described = `${LARGE.files.toLocaleString("en-US")} files, ${(directoryBytes(large) / 1e9).toFixed(2)} GB`
      await createRepository(server.url, token, "large")
      const pushed = await timed(() => git(env, ["push", "-q", remote("large"), "refs/heads/*:refs/heads/*"], { cwd: large }))
      const largeScratch = scratch("large")
      try {
        const onLarge = reportSmallOperations(
          await smallOperations(env, large, largeScratch, { push: remote("large"), fetch: anonymousRemote("large") }, server.pid, settings.gitRounds, {
            rounds: settings.gitWarmUpRounds
          }),
          settings.gitRounds
        )
        for (const line of [`whole-history push of the large repository (${described}) through Kiln: ${(pushed / 1000).toFixed(1)} s`, ...onLarge.lines]) {
          const tagged = line.startsWith("whole-history") ? line : `large repository (${described}): ${line}`
          log(`[${kind}] ${tagged}`)
          notes.push(tagged)
        }
        largeTargets.push(
          below(`large repository: Kiln CPU ÷ git CPU per push of ${SMALL_COMMITS} commits`, onLarge.pushRatio, 0.5, false),
          below(`Kiln CPU per push of ${SMALL_COMMITS} commits: large repository ÷ the ${(directoryBytes(source) / 1e6).toFixed(0)} MB one`,
            onLarge.pushKilnMs / report.pushKilnMs, 1.2, false)
        )
      } finally {
        Fs.rmSync(largeScratch, { recursive: true, force: true })
      }
    }
    // What part of those operations is the server running cold: each of their requests comes after
    // the server idled while the client's git ran.
    const versionBytes = (await (await fetch(`${server.url}/api/v1/version`)).arrayBuffer()).byteLength
    const kilnPaused = await measurePausedRequests(server, "/api/v1/version")
    const bare = await startBareJson(versionBytes)
    const barePaused = await measurePausedRequests(bare, "/api/v1/version").finally(() => bare.stop())
    const pausedLine = `requests one at a time (as a git operation's come): Kiln GET /version ${describePausedRequests(kilnPaused)}; ` +
      `bare node:http JSON ${describePausedRequests(barePaused)}`
    log(`[${kind}] ${pausedLine}`)
    notes.push(pausedLine)

    // 500 branches over the 300 commits, pushed at once; then the first page of the list under load.
    await createRepository(server.url, token, "branchy")
    const commits = (await git(env, ["rev-list", "main"], { cwd: source })).split("\n").filter((line) => line !== "")
    const refspecs = Array.from({ length: BRANCHES }, (_, i) => `${commits[i % commits.length]}:refs/heads/branch-${i}`)
    const branchPush = await timed(() => git(env, ["push", "-q", remote("branchy"), "main", ...refspecs], { cwd: source }))
    notes.push(`push of ${BRANCHES} branches at once (branch table synced in the push): ${branchPush.toFixed(0)} ms`)
    const listPath = `/api/v1/repos/${admin.username}/branchy/branches?limit=50`
    const probe = await fetch(`${server.url}${listPath}`)
    const total = probe.headers.get("x-total-count")
    notes.push(`GET ${listPath}: ${(await probe.arrayBuffer()).byteLength} bytes, X-Total-Count ${total}`)
    if (total !== String(BRANCHES + 1)) throw new Error(`the branch list counts ${total} branches, not ${BRANCHES + 1}`)
    const list = await runLoad({
      label: `Kiln GET /branches?limit=50 (${BRANCHES + 1} branches)`,
      baseUrl: server.url,
      paths: [listPath],
      connections: LIST_CONNECTIONS,
      warmupSeconds: settings.warmupSeconds,
      windows: settings.windows,
      windowSeconds: settings.seconds / settings.windows
    }, (window) =>
      log(`[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
        `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms`))

    const targets: Array<TargetCheck> = [
      below(`Kiln CPU ÷ git CPU per push of ${SMALL_COMMITS} commits`, report.pushRatio, 0.5, false),
      below(`Kiln CPU ÷ git CPU per fetch of ${SMALL_COMMITS} commits`, report.fetchRatio, 0.5, false),
      below(`CPU of a push of ${SMALL_COMMITS} commits through Kiln ÷ to the file system`, report.pushCpuRatio, 1.2, false),
      below("push of the whole history through Kiln ÷ to the file system (median, wall time)", median(kilnPushes) / median(diskPushes), 1.2, false),
      below("push of the whole history through Kiln ÷ through a bare smart-HTTP relay (median, wall time)", median(kilnPushes) / median(barePushes), 1, false),
      ...largeTargets,
      below("clone through Kiln ÷ file-system clone (median)", cloneRatio, 1.5, true),
      below(`${list.label}: p50 ms`, list.p50Ms, 20, true),
      ...validity(list)
    ]
    return { database: kind, loads: [list], comparisons: [], targets, notes }
  } finally {
    await server?.stop()
    await database.dispose()
  }
}

export const scenario: Scenario = {
  name: "git",
  description: "clone and push of a 2,000-file, 300-commit repository through Kiln vs the file system; GET /branches over 500 branches",
  run: async (settings, log) => {
    const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-bench-git-"))
    const databases: Array<DatabaseReport> = []
    try {
      const home = Path.join(work, "home")
      Fs.mkdirSync(home)
      const env = gitEnv(home)
      const started = performance.now()
      const source = await generate(work, env)
      log(`generated the repository in ${((performance.now() - started) / 1000).toFixed(1)} s (${(directoryBytes(source) / 1e6).toFixed(1)} MB)`)
      const large = settings.gitLarge ? await generate(work, env, LARGE, "large") : undefined
      if (large !== undefined) log(`generated the large repository in ${((performance.now() - started) / 1000).toFixed(1)} s in all (${(directoryBytes(large) / 1e9).toFixed(2)} GB)`)
      for (const kind of settings.databases) {
        try {
          databases.push(await runOn(kind, settings, source, large, work, env, log))
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error)
          log(`[${kind}] failed: ${message}`)
          databases.push({ database: kind, loads: [], comparisons: [], targets: [], notes: [], error: message })
        }
      }
    } finally {
      Fs.rmSync(work, { recursive: true, force: true })
    }
    return { scenario: "git", databases }
  }
}
