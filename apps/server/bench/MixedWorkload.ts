/**
 * A mixed workload shaped like GitLab's reference architectures: per 1,000 users, 20 API requests/s,
 * 2 git pulls/s and 0.4 git pushes/s. API calls are spread evenly over get repository, branches,
 * combined status, search, the signed-in user, quota and markdown; a pull is a fetch of the few
 * commits pushed since, a push is three commits. Open loop: operations start at their rate whether
 * or not earlier ones finished, and an operation's latency counts from when it was due (a git
 * operation waiting for its copy or lane to be free waits in its latency). Requests go round
 * robin to the servers given.
 *
 * Git is spoken over HTTP from this process (GitHttpClient.ts), as the GitLab Performance Tool
 * does, with pushes made ready between levels (PushLanes.ts): the server does what `git fetch` and
 * `git push` make it do, and the load generator runs no git process while a level is measured
 * (git clients cost more CPU than the server's side of their requests on this 2-core machine).
 */
import * as GitHttpClient from "./GitHttpClient.ts"
import { percentile } from "./LoadGenerator.ts"
import { PushLanes } from "./PushLanes.ts"

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
  /** The API requests by kind (a repository, its branches, ...): which make the tail. */
  readonly apiByCall: ReadonlyArray<{ readonly call: string; readonly stats: OperationStats }>
  readonly pulls: OperationStats
  readonly pushes: OperationStats
}

export interface MixedTarget {
  /** `http://127.0.0.1:<port>` of each server. */
  readonly baseUrls: ReadonlyArray<string>
  /**
   * An access token with every scope, of the repositories' owner. Git requests carry it as their
   * Basic password, as CI jobs and credential helpers do: an account password would cost every
   * git request a 128 MiB scrypt derivation (two at once at most), which is the sign-in's bound,
   * not the server's capacity.
   */
  readonly token: string
  readonly owner: string
  /** Repositories with a `main` branch, owned by `owner`. */
  readonly repositories: ReadonlyArray<string>
  /** Where the push lanes' local copies go. */
  readonly workDir: string
}

/** Things used by one operation at a time, in turn; an operation waits for a free one. */
class Pool<A> {
  readonly #free: Array<A>
  readonly #waiting: Array<(item: A) => void> = []
  constructor(items: ReadonlyArray<A>) {
    this.#free = [...items]
  }
  async use<B>(task: (item: A) => Promise<B>): Promise<B> {
    const item = this.#free.shift() ?? await new Promise<A>((resolve) => this.#waiting.push(resolve))
    try {
      return await task(item)
    } finally {
      const next = this.#waiting.shift()
      if (next === undefined) this.#free.push(item)
      else next(item)
    }
  }
}

/** What a pulling copy of a repository knows of it. */
interface PullCopy {
  readonly repository: string
  readonly known: Map<string, string>
}

const statsOf = (latencies: Array<number>, failures: number): OperationStats => {
  const sorted = Float64Array.from(latencies).sort()
  return { count: latencies.length, failures, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }
}

const remoteOf = (target: MixedTarget, base: string, repository: string): GitHttpClient.Remote => ({
  url: `${base}/${target.owner}/${repository}.git`,
  authorization: `Basic ${Buffer.from(`${target.owner}:${target.token}`).toString("base64")}`
})

/** Pulling copies (each knowing its repository's refs as of now) and push lanes, spread over the repositories. */
export const prepare = async (target: MixedTarget, counts: { readonly pullCopies: number; readonly lanesPerRepository: number }) => {
  const base = target.baseUrls[0] ?? ""
  const copies = await Promise.all(Array.from({ length: counts.pullCopies }, async (_, index): Promise<PullCopy> => {
    const repository = target.repositories[index % target.repositories.length] ?? ""
    return { repository, known: await GitHttpClient.listRefs(remoteOf(target, base, repository)) }
  }))
  const lanes = await PushLanes.make(
    target.repositories.map((name) => {
      const url = new URL(`${base}/${target.owner}/${name}.git`)
      url.username = target.owner
      url.password = target.token
      return { name, cloneUrl: url.toString() }
    }),
    counts.lanesPerRepository,
    target.workDir
  )
  return { pulls: new Pool(copies), lanes }
}

export type Prepared = Awaited<ReturnType<typeof prepare>>

const markdown = JSON.stringify({ text: "# Title\n\nSome *emphasis*, a `code span` and a [link](https://example.com).", mode: "gfm" })

/**
 * Runs one level of `users` for `seconds`, then waits for what is still in flight. `onClockStarted`
 * runs once the level's pushes are made ready, when its operations start.
 */
export const runLevel = async (
  target: MixedTarget,
  prepared: Prepared,
  users: number,
  seconds: number,
  onClockStarted: () => void = () => {}
): Promise<LevelResult> => {
  const rates = { api: users * 20 / 1000, pulls: users * 2 / 1000, pushes: users * 0.4 / 1000 }
  // Twice the level's share per lane, as lanes are taken when free rather than in turn (made before the clock starts).
  const usable = prepared.lanes.lanes.filter((lane) => !lane.broken)
  await prepared.lanes.prepare(Math.ceil(rates.pushes * seconds / Math.max(1, usable.length)) * 2 + 2)
  const lanes = new Pool(usable)
  const auth = { authorization: `token ${target.token}` }
  const repositoryPaths = target.repositories.map((name) => `/api/v1/repos/${target.owner}/${name}`)
  const pickRepository = () => repositoryPaths[Math.floor(Math.random() * repositoryPaths.length)] ?? ""
  const apiCalls: ReadonlyArray<{ readonly call: string; readonly make: () => { readonly path: string; readonly init?: RequestInit } }> = [
    { call: "repository", make: () => ({ path: pickRepository() }) },
    { call: "branches", make: () => ({ path: `${pickRepository()}/branches` }) },
    { call: "combined status", make: () => ({ path: `${pickRepository()}/commits/main/status` }) },
    { call: "search", make: () => ({ path: "/api/v1/repos/search?q=mixed&limit=10" }) },
    { call: "user", make: () => ({ path: "/api/v1/user" }) },
    { call: "quota", make: () => ({ path: "/api/v1/user/quota" }) },
    {
      call: "markdown",
      make: () => ({ path: "/api/v1/markdown", init: { method: "POST", body: markdown, headers: { ...auth, "content-type": "application/json" } } })
    }
  ]
  const byCall = apiCalls.map(() => ({ latencies: [] as Array<number>, failures: 0 }))
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

  const api = (dueAt: number) => {
    const kind = issued % apiCalls.length
    const call = apiCalls[kind]?.make() ?? { path: "/api/v1/version" }
    const base = target.baseUrls[issued++ % target.baseUrls.length] ?? ""
    timed("api", dueAt, async () => {
      let ok = false
      try {
        const response = await fetch(`${base}${call.path}`, call.init ?? { headers: auth })
        await response.arrayBuffer()
        ok = response.ok
        return ok
      } finally {
        const into = byCall[kind]
        if (into !== undefined) {
          into.latencies.push(performance.now() - dueAt)
          if (!ok) into.failures++
        }
      }
    })
  }
  let gitOperations = 0
  const nextBase = () => target.baseUrls[gitOperations++ % target.baseUrls.length] ?? ""
  const pull = (dueAt: number) =>
    timed("pulls", dueAt, () => prepared.pulls.use(async (copy) => {
      await GitHttpClient.fetchChanges(remoteOf(target, nextBase(), copy.repository), copy.known)
      return true
    }))
  const push = (dueAt: number) =>
    timed("pushes", dueAt, () => lanes.use(async (lane) => {
      const prepared = lane.take()
      if (prepared === undefined) return false
      try {
        await GitHttpClient.push(remoteOf(target, nextBase(), lane.repository), prepared.ref, prepared.oldId, prepared.newId, prepared.pack)
        return true
      } catch (error) {
        lane.failed()
        throw error
      }
    }))

  onClockStarted()
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
    apiByCall: apiCalls.map(({ call }, index) => ({
      call,
      stats: statsOf(byCall[index]?.latencies ?? [], byCall[index]?.failures ?? 0)
    })),
    pulls: statsOf(latencies.pulls, failures.pulls),
    pushes: statsOf(latencies.pushes, failures.pushes)
  }
}

/** The p99 latency each kind of operation must stay under for a level to be held. */
export interface HeldLimits {
  readonly apiP99Ms: number
  readonly pullP99Ms: number
  readonly pushP99Ms: number
}

/** A level is held when each kind's p99 stays under its limit and under 1 % of operations fail. */
export const held = (level: LevelResult, limits: HeldLimits): boolean => {
  const operations = level.api.count + level.pulls.count + level.pushes.count
  const failed = level.api.failures + level.pulls.failures + level.pushes.failures
  return level.api.p99Ms < limits.apiP99Ms && level.pulls.p99Ms < limits.pullP99Ms &&
    level.pushes.p99Ms < limits.pushP99Ms && failed < operations * 0.01
}
