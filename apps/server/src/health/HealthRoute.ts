/**
 * `GET /api/healthz` for load balancers, as Forgejo serves it: `application/health+json` with a
 * `database:ping` check (a query answered) and a `storage:write` check (a file created, synced and
 * removed in the data directory, which every process shares). 200 when both pass; 503 otherwise,
 * so that a load balancer takes the process out of rotation. Each check gives up after 5 seconds.
 *
 * Anyone may ask, as often as they like, and nothing counts the asking: a report is made once at a
 * time and answered to every request for a second after it was made (ReusedReport), so a flood of
 * requests costs a query and a file write per second, not per request.
 */
import { Cause, Clock, Deferred, Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { open, rm } from "node:fs/promises"
import { join } from "node:path"
import { KilnConfig } from "../config/KilnConfig.ts"
import { pathnameOf } from "../http/RequestTarget.ts"
import { type ComponentStatus, type HealthReport, report, timeOf } from "./HealthReport.ts"

const checkTimeout = Duration.seconds(5)

export const healthPath = "/api/healthz"

/** Whether a request is for the health check, whose 503 carries its own body (not the generic 5xx one). */
export const isHealthRequest = (url: string): boolean => pathnameOf(url) === healthPath

const outcome = <E>(check: Effect.Effect<unknown, E>): Effect.Effect<ComponentStatus> =>
  Effect.gen(function*() {
    const result = yield* check.pipe(
      Effect.timeoutOrElse({ duration: checkTimeout, orElse: () => Effect.fail(`no answer within ${Duration.format(checkTimeout)}`) }),
      Effect.exit
    )
    const time = timeOf(yield* Clock.currentTimeMillis)
    if (result._tag === "Success") return { status: "pass", time }
    const failure = Cause.squash(result.cause)
    const output = typeof failure === "string" ? failure : failure instanceof Error ? failure.message : String(failure)
    return { status: "fail", time, output }
  })

/** Without paths: the answer is public. */
const storageFailure = (error: unknown): string =>
  `cannot write to the data directory (${error instanceof Error && "code" in error ? String(error.code) : "unknown error"})`

const writeProbe = (dataDir: string) =>
  Effect.tryPromise({
    try: async () => {
      const path = join(dataDir, `.healthz-${randomBytes(6).toString("hex")}`)
      const handle = await open(path, "wx")
      try {
        await handle.writeFile("ok")
        await handle.datasync()
      } finally {
        await handle.close()
        await rm(path, { force: true })
      }
    },
    catch: storageFailure
  })

/** How long a report is answered after it was made (wall-clock milliseconds). */
export const REPORT_REUSE_MILLIS = 1_000

/**
 * `make`'s report, made once at a time: a request while one is being made waits for it, and one
 * within REPORT_REUSE_MILLIS of the last made gets that. Making one is not interrupted with the
 * request that started it (its checks give up on their own), since others may be waiting for it.
 */
interface Making {
  readonly report: Deferred.Deferred<HealthReport>
  /** When it was made; undefined while it is being made. */
  madeAt: number | undefined
}

export const reusedReport = (make: Effect.Effect<HealthReport>): Effect.Effect<HealthReport> => {
  let latest: Making | undefined
  return Effect.suspend(() => {
    if (latest !== undefined && (latest.madeAt === undefined || Date.now() - latest.madeAt < REPORT_REUSE_MILLIS)) {
      return Deferred.await(latest.report)
    }
    const current: Making = { report: Deferred.makeUnsafe<HealthReport>(), madeAt: undefined }
    latest = current
    return Effect.uninterruptible(Effect.flatMap(Effect.exit(make), (exit) => {
      current.madeAt = Date.now()
      return Effect.andThen(Deferred.done(current.report, exit), exit)
    }))
  })
}

export const layer: Layer.Layer<never, never, HttpRouter.HttpRouter | SqlClient.SqlClient | KilnConfig> = Layer.unwrap(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* KilnConfig
    const current = reusedReport(Effect.gen(function*() {
      const [database, storage] = yield* Effect.all([outcome(sql`SELECT 1`), outcome(writeProbe(config.dataDir))], {
        concurrency: "unbounded"
      })
      return report("Kiln", { "database:ping": database, "storage:write": storage })
    }))
    return HttpRouter.add("GET", healthPath, () =>
      Effect.gen(function*() {
        const body = yield* current
        return HttpServerResponse.text(JSON.stringify(body, null, 2), {
          status: body.status === "pass" ? 200 : 503,
          contentType: "application/health+json",
          headers: { "cache-control": "no-store" }
        })
      }))
  })
)
