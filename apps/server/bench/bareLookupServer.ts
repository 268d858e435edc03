/**
 * Baseline: a bare `node:http` server doing the lookup behind `GET /api/v1/users/{username}` —
 * Kiln's own query (`findByName`: all user columns by `lower_name`) through the same client Kiln
 * opens (`@effect/sql-pg` with Kiln's pool settings, or the same PGlite bridge) — and answering the
 * row as JSON. No routing, authentication or schema work. Forked by Baselines.ts.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Http from "node:http"
import { USER_COLUMNS } from "@kiln/postgres/stores/UserStoreSql"
import { clientLayer, type DatabaseLocation } from "./BenchDatabase.ts"
import { announceListening } from "./ChildServer.ts"

export interface BareLookupConfig {
  readonly port: number
  readonly database: DatabaseLocation
}

const prefix = "/api/v1/users/"

/** int8 columns arrive as bigint, which JSON cannot carry; ids fit in a double. */
const jsonValue = (_key: string, value: unknown): unknown => typeof value === "bigint" ? Number(value) : value

// The parent (Baselines.ts) wrote this argument from a BareLookupConfig.
const config: BareLookupConfig = JSON.parse(process.argv[2] ?? "{}")

const serve = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(USER_COLUMNS)
  const lookup = (name: string) => sql`SELECT ${columns} FROM users WHERE lower_name = ${name.toLowerCase()}`

  const server = Http.createServer((request, response) => {
    const url = request.url ?? ""
    const name = url.startsWith(prefix) ? decodeURIComponent(url.slice(prefix.length)) : ""
    Effect.runPromise(lookup(name)).then(
      (rows) => {
        const body = rows.length === 0 ? `{"message":"user does not exist"}` : JSON.stringify(rows[0], jsonValue)
        response.writeHead(rows.length === 0 ? 404 : 200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body)
        })
        response.end(body)
      },
      () => {
        response.writeHead(500)
        response.end()
      }
    )
  })
  yield* Effect.acquireRelease(
    Effect.callback<void>((resume) => {
      server.listen(config.port, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
  announceListening(config.port)
  return yield* Effect.never
})

// SIGTERM interrupts the program; closing its scope closes the database cleanly.
NodeRuntime.runMain(Effect.scoped(serve.pipe(Effect.provide(clientLayer(config.database)))))
