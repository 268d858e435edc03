/**
 * Throughput of a primary-key lookup under 64 concurrent fibers, per client configuration.
 * Run: npx pnpm@12.21.0 exec node packages/postgres/bench/pkLookup.ts [postgres://postgres@127.0.0.1:5432/test]
 * The Postgres rows run only when a URL is given; PGlite rows always run (in memory).
 */
import { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as PgliteBridge from "../src/PgliteBridge.ts"

const rows = 1000
const queries = 20_000
const fibers = 64

const measure = (label: string, client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = Context.get(yield* Layer.build(client), SqlClient.SqlClient)
    yield* sql`DROP TABLE IF EXISTS bench_pk`
    yield* sql`CREATE TABLE bench_pk (id int PRIMARY KEY, name text NOT NULL)`
    yield* sql`INSERT INTO bench_pk SELECT g, 'name ' || g FROM generate_series(1, ${rows}) g`
    const lookup = (i: number) => sql`SELECT id, name FROM bench_pk WHERE id = ${(i % rows) + 1}`
    yield* Effect.forEach(Array.from({ length: 2000 }, (_, i) => i), lookup, { concurrency: fibers, discard: true })
    const runs: Array<number> = []
    for (let run = 0; run < 3; run++) {
      const start = performance.now()
      yield* Effect.forEach(Array.from({ length: queries }, (_, i) => i), lookup, { concurrency: fibers, discard: true })
      runs.push(queries / ((performance.now() - start) / 1000))
    }
    yield* sql`DROP TABLE bench_pk`
    console.log(`${label.padEnd(44)} ${runs.map((qps) => `${(qps / 1000).toFixed(1)}k`).join("  ")} qps`)
  }))

const program = Effect.gen(function*() {
  const url = process.argv[2]
  if (url !== undefined) {
    for (const maxConnections of [1, 4, 10, 20]) {
      for (const multiplex of [false, true]) {
        yield* measure(
          `postgres pool ${maxConnections}${multiplex ? " multiplex" : ""}`,
          PgClient.layer({ url: Redacted.make(url), username: "postgres", maxConnections, multiplex })
        )
      }
    }
  }
  const db = yield* Effect.acquireRelease(Effect.promise(() => PGlite.create()), (db) => Effect.promise(() => db.close()))
  for (const multiplex of [false, true]) {
    yield* measure(
      `pglite bridge pool 1${multiplex ? " multiplex" : ""}`,
      PgClient.layer({
        stream: () => PgliteBridge.connect(db),
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        minConnections: 1,
        multiplex
      })
    )
  }
})

Effect.runPromise(Effect.scoped(program)).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
