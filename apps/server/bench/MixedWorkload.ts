/**
 * A mixed workload shaped like GitLab's reference architectures: per 1,000 users, 20 API requests/s,
 * 2 git pulls/s and 0.4 git pushes/s. API calls are spread evenly over get repository, branches,
 * combined status, search, the signed-in user, quota and markdown; a pull is a `git fetch` of the
 * few commits pushed since, a push is a few commits. Open loop: operations start at their rate
 * whether or not earlier ones finished, and an operation's latency counts from when it was due
 * (a git operation waiting for a free working copy waits in its latency). Requests and git
 * processes go round robin to the servers given.
 *
 * The git clients run on this machine too: their processes take CPU from the servers measured.
 */
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { promisify } from "node:util"
import { percentile } from "./LoadGenerator.ts"

const run = promisify(execFile)

const gitEnv = {
  ...process.env,
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@bench.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@bench.invalid"
}

const git = (args: ReadonlyArray<string>, cwd?: string) =>
  run("git", [...args], { env: gitEnv, ...(cwd === undefined ? {} : { cwd }), maxBuffer: 16 * 1024 * 1024 })

export interface OperationStats {
  readonly count: number
  readonly failures: number
  readonly p50Ms: number
  readonly p99Ms: number
}

export interface LevelResult {
  /** GitLab's "users": 20 API requests/s per 1,000. */
  readonly users: number
  readonly apiPerSecond: number
  readonly pullsPerSecond: number
  readonly pushesPerSecond: number
  readonly api: OperationStats
  readonly pulls: OperationStats
  readonly pushes: OperationStats
}

export interface MixedTarget {
  /** `http://127.0.0.1:<port>` of each server. */
  readonly baseUrls: ReadonlyArray<string>
  /**
   * An access token with every scope, of the repositories' owner. Git sends it as its Basic
   * password, as CI jobs and credential helpers do: an account password would cost every git
   * request a 128 MiB scrypt derivation (two at once at most), which is the sign-in's bound, not
   * the server's capacity.
   */
  readonly token: string
  readonly owner: string
  /** Repositories with a `main` branch, owned by `owner`. */
  readonly repositories: ReadonlyArray<string>
  /** Where working copies go. */
  readonly workDir: string
}

/** Working copies, each used by one git operation at a time; an operation waits for a free one. */
class CopyPool {
  readonly #free: Array<string>
  readonly #waiting: Array<(copy: string) => void> = []
  constructor(copies: ReadonlyArray<string>) {
    this.#free = [...copies]
  }
  async use<A>(task: (copy: string) => Promise<A>): Promise<A> {
    const copy = this.#free.pop() ?? await new Promise<string>((resolve) => this.#waiting.push(resolve))
    try {
      return await task(copy)
    } finally {
      const next = this.#waiting.shift()
      if (next === undefined) this.#free.push(copy)
      else next(copy)
    }
  }
}

const statsOf = (latencies: Array<number>, failures: number): OperationStats => {
  const sorted = Float64Array.from(latencies).sort()
  return { count: latencies.length, failures, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }
}

/** Working copies for pulls and pushes (clones of every repository, round robin). */
export const prepare = async (target: MixedTarget, copies: { readonly pull: number; readonly push: number }) => {
  const remote = (index: number, repository: string) => {
    const url = new URL(target.baseUrls[index % target.baseUrls.length] ?? "")
    url.username = target.owner
    url.password = target.token
    url.pathname = `/${target.owner}/${repository}.git`
    return url.toString()
  }
  const clone = async (kind: string, index: number) => {
    const repository = target.repositories[index % target.repositories.length] ?? ""
    const path = Path.join(target.workDir, `${kind}-${index}`)
    Fs.rmSync(path, { recursive: true, force: true })
    await git(["clone", "-q", remote(index, repository), path])
    return path
  }
  const pulls = await Promise.all(Array.from({ length: copies.pull }, (_, i) => clone("pull", i)))
  const pushes = await Promise.all(Array.from({ length: copies.push }, (_, i) => clone("push", i)))
  return { pulls: new CopyPool(pulls), pushes: new CopyPool(pushes), pushCopies: pushes }
}

export type Prepared = Awaited<ReturnType<typeof prepare>>

const markdown = JSON.stringify({ text: "# Title\n\nSome *emphasis*, a `code span` and a [link](https://example.com).", mode: "gfm" })

/** Runs one level of `users` for `seconds`, then waits for what is still in flight. */
export const runLevel = async (target: MixedTarget, prepared: Prepared, users: number, seconds: number): Promise<LevelResult> => {
  const rates = { api: users * 20 / 1000, pulls: users * 2 / 1000, pushes: users * 0.4 / 1000 }
  const auth = { authorization: `token ${target.token}` }
  const repositoryPaths = target.repositories.map((name) => `/api/v1/repos/${target.owner}/${name}`)
  const pickRepository = () => repositoryPaths[Math.floor(Math.random() * repositoryPaths.length)] ?? ""
  const apiCalls: ReadonlyArray<() => { readonly path: string; readonly init?: RequestInit }> = [
    () => ({ path: pickRepository() }),
    () => ({ path: `${pickRepository()}/branches` }),
    () => ({ path: `${pickRepository()}/commits/main/status` }),
    () => ({ path: "/api/v1/repos/search?q=mixed&limit=10" }),
    () => ({ path: "/api/v1/user" }),
    () => ({ path: "/api/v1/user/quota" }),
    () => ({ path: "/api/v1/markdown", init: { method: "POST", body: markdown, headers: { ...auth, "content-type": "application/json" } } })
  ]
  const latencies = { api: [] as Array<number>, pulls: [] as Array<number>, pushes: [] as Array<number> }
  const failures = { api: 0, pulls: 0, pushes: 0 }
  let issued = 0
  const inFlight = new Set<Promise<void>>()

  const timed = (kind: keyof typeof latencies, dueAt: number, operation: () => Promise<boolean>) => {
    const promise = operation().then(
      (ok) => {
        latencies[kind].push(performance.now() - dueAt)
        if (!ok) failures[kind]++
      },
      () => {
        latencies[kind].push(performance.now() - dueAt)
        failures[kind]++
      }
    ).finally(() => inFlight.delete(promise))
    inFlight.add(promise)
  }

  const api = (dueAt: number) =>
    timed("api", dueAt, async () => {
      const call = apiCalls[issued % apiCalls.length]?.() ?? { path: "/api/v1/version" }
      const base = target.baseUrls[issued++ % target.baseUrls.length] ?? ""
      const response = await fetch(`${base}${call.path}`, call.init ?? { headers: auth })
      await response.arrayBuffer()
      return response.ok
    })
  const pull = (dueAt: number) =>
    timed("pulls", dueAt, () => prepared.pulls.use(async (copy) => {
      await git(["fetch", "-q", "origin"], copy)
      return true
    }))
  let pushNumber = 0
  const push = (dueAt: number) =>
    timed("pushes", dueAt, () => prepared.pushes.use(async (copy) => {
      const number = pushNumber++
      for (let commit = 0; commit < 3; commit++) {
        // A file per working copy: copies pushing to one branch rebase on each other without conflicts.
        Fs.writeFileSync(Path.join(copy, `change-${Path.basename(copy)}.txt`), `${number}-${commit}\n`)
        await git(["add", "-A"], copy)
        await git(["commit", "-q", "-m", `change ${number}-${commit}`], copy)
      }
      await git(["push", "-q", "origin", "HEAD:refs/heads/main"], copy).catch(async () => {
        // Another copy pushed to the same branch first: take its commits, then push again.
        await git(["pull", "-q", "--rebase", "origin", "main"], copy)
        await git(["push", "-q", "origin", "HEAD:refs/heads/main"], copy)
      })
      return true
    }))

  const started = performance.now()
  const done = { api: 0, pulls: 0, pushes: 0 }
  const start = { api, pulls: pull, pushes: push }
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = Math.min(seconds, (performance.now() - started) / 1000)
      for (const kind of ["api", "pulls", "pushes"] as const) {
        const due = Math.floor(rates[kind] * elapsed)
        while (done[kind] < due) {
          done[kind]++
          start[kind](started + (done[kind] / rates[kind]) * 1000)
        }
      }
      if (elapsed >= seconds) {
        clearInterval(timer)
        resolve()
      }
    }, 5)
  })
  await Promise.all(inFlight)
  return {
    users,
    apiPerSecond: rates.api,
    pullsPerSecond: rates.pulls,
    pushesPerSecond: rates.pushes,
    api: statsOf(latencies.api, failures.api),
    pulls: statsOf(latencies.pulls, failures.pulls),
    pushes: statsOf(latencies.pushes, failures.pushes)
  }
}

/** A level is held when API p99 stays under `p99LimitMs` and under 1 % of operations fail. */
export const held = (level: LevelResult, p99LimitMs: number): boolean => {
  const operations = level.api.count + level.pulls.count + level.pushes.count
  const failed = level.api.failures + level.pulls.failures + level.pushes.failures
  return level.api.p99Ms < p99LimitMs && failed <= operations * 0.01
}
