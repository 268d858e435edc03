/**
 * `GET /api/healthz` for load balancers, as Forgejo serves it: `application/health+json` with a
 * `database:ping` check (a query answered) and a `storage:write` check (a file created, synced and
 * removed in the data directory, which every process shares). 200 when both pass; 503 otherwise,
 * so that a load balancer takes the process out of rotation. Each check gives up after 5 seconds.
 */
import { Cause, Clock, Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { open, rm } from "node:fs/promises"
import { join } from "node:path"
import { KilnConfig } from "../config/KilnConfig.ts"
import { type ComponentStatus, report, timeOf } from "./HealthReport.ts"

const checkTimeout = Duration.seconds(5)

export const healthPath = "/api/healthz"

/** Whether a request is for the health check, whose 503 carries its own body (not the generic 5xx one). */
export const isHealthRequest = (url: string): boolean => new URL(url, "http://internal").pathname === healthPath

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

export const layer: Layer.Layer<never, never, HttpRouter.HttpRouter | SqlClient.SqlClient | KilnConfig> = Layer.unwrap(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* KilnConfig
    return HttpRouter.add("GET", healthPath, () =>
      Effect.gen(function*() {
        const [database, storage] = yield* Effect.all([outcome(sql`SELECT 1`), outcome(writeProbe(config.dataDir))], {
          concurrency: "unbounded"
        })
        const body = report("Kiln", { "database:ping": database, "storage:write": storage })
        return HttpServerResponse.text(JSON.stringify(body, null, 2), {
          status: body.status === "pass" ? 200 : 503,
          contentType: "application/health+json",
          headers: { "cache-control": "no-store" }
        })
      }))
  })
)
