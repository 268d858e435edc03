/**
 * The client of a PostgreSQL server on its two pools (ServerClient.ts), against a real server
 * (KILN_TEST_DATABASE_URL; skipped on PGlite, which has a client of its own). Statements share the
 * few connections of one pool and are not held up by transactions, which hold connections of the
 * other: with every one of those held by an open transaction, statements still run. A transaction's
 * statements run on its own connection, never one that statements share.
 */
import type { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Redacted, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import * as ConnectionUrl from "../src/ConnectionUrl.ts"
import * as ServerClient from "../src/ServerClient.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]

const SIZES: ServerClient.PoolSizes = { shared: 2, own: 2 }

/** `body` with a client of small pools on a fresh database of the server. */
const withClient = <A, E>(body: (sql: PgClient.PgClient) => Effect.Effect<A, E, Scope.Scope>) =>
  TestClock.withLive(Effect.scoped(Effect.gen(function*() {
    const url = yield* TestDatabase.serverDatabase(Redacted.make(serverUrl ?? ""))
    const sql = yield* ServerClient.make({ url, ...ConnectionUrl.defaultNames(url) }, SIZES).pipe(Effect.provide(Reactivity.layer))
    return yield* body(sql)
  })))

const backend = (sql: PgClient.PgClient) =>
  Effect.map(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`, (rows) => rows[0]?.pid ?? -1)

/** Many statements at once, each telling the backend it ran on. */
const backendsOfStatements = (sql: PgClient.PgClient, count: number) =>
  Effect.map(
    Effect.forEach(Array.from({ length: count }), () => backend(sql), { concurrency: "unbounded" }),
    (pids) => new Set(pids)
  )

describe.skipIf(serverUrl === undefined)("ServerClient", () => {
  it.effect("statements share the shared pool's connections; a transaction runs on one of its own", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        const shared = yield* backendsOfStatements(sql, 64)
        assert.isAtMost(shared.size, SIZES.shared)
        const inside = yield* sql.withTransaction(Effect.all([backend(sql), backend(sql), backend(sql)]))
        assert.strictEqual(new Set(inside).size, 1)
        assert.isFalse(shared.has(inside[0]))
      })))

  it.effect("statements submitted from separate callbacks of one turn, sent together, each get their own answer", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        // Each from its own timer callback, as requests read in one poll: their writes are corked together.
        const answers = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 40 }, (_, i) =>
            new Promise<unknown>((resolve, reject) =>
              setTimeout(() => Effect.runPromise(sql<{ readonly n: number }>`SELECT ${i}::int AS n`).then((rows) => resolve(rows[0]?.n), reject), 0)
            )))
        )
        assert.deepStrictEqual(answers, Array.from({ length: 40 }, (_, i) => i))
        // A failing statement among them fails alone.
        const mixed = yield* Effect.all([sql`SELECT 1/0`.pipe(Effect.result), sql<{ readonly n: number }>`SELECT 2 AS n`], { concurrency: "unbounded" })
        assert.strictEqual(mixed[0]._tag, "Failure")
        assert.deepStrictEqual(mixed[1], [{ n: 2 }])
      })))

  it.effect("statements run while every connection of the transaction pool is held by an open transaction", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id int PRIMARY KEY, v text)`
        const release = yield* Deferred.make<void>()
        const opened = yield* Queue.unbounded<number>()
        const holders = yield* Effect.forEach(Array.from({ length: SIZES.own }, (_, i) => i), (i) =>
          Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO t VALUES (${i}, 'uncommitted')`
            // The transaction sees its own write: its statements run on its connection.
            const mine = yield* sql<{ readonly v: string }>`SELECT v FROM t WHERE id = ${i}`
            yield* Queue.offer(opened, mine.length)
            yield* Deferred.await(release)
          }))))
        for (let i = 0; i < SIZES.own; i++) assert.strictEqual(yield* Queue.take(opened), 1)

        // Every connection of the transaction pool is taken; statements go on, and see nothing uncommitted.
        const seen = yield* Effect.forEach(Array.from({ length: 20 }), () => sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM t`, {
          concurrency: "unbounded"
        }).pipe(Effect.timeout("5 seconds"))
        assert.deepStrictEqual(new Set(seen.map((rows) => rows[0]?.n)), new Set([0]))

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.joinAll(holders)
        assert.deepStrictEqual(yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM t`, [{ n: SIZES.own }])
      })))

  it.effect("a COMMIT that PostgreSQL answers with ROLLBACK fails, and nothing of it is kept", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id int PRIMARY KEY)`
        const result = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t VALUES (1)`
          // A failed statement aborts the transaction; ignoring the failure does not revive it.
          yield* Effect.ignore(sql`INSERT INTO t VALUES (1)`)
        })).pipe(Effect.result)
        assert.isTrue(result._tag === "Failure" && String(result.failure).includes("COMMIT rolled back"))
        assert.deepStrictEqual(yield* sql`SELECT * FROM t`, [])
      })))

  it.effect("streams and listeners hold connections of the transaction pool, not shared ones", () =>
    withClient((sql) =>
      Effect.gen(function*() {
        const shared = yield* backendsOfStatements(sql, 64)
        const streamed = yield* Stream.runCollect(sql<{ readonly pid: number; readonly n: number }>`
          SELECT pg_backend_pid() AS pid, n FROM generate_series(1, 3) AS n`.stream)
        assert.deepStrictEqual(streamed.map((row) => row.n), [1, 2, 3])
        assert.isFalse(shared.has(streamed[0]?.pid ?? -1))

        const notifications = yield* sql.listen("kiln_server_client_test")
        yield* sql.notify("kiln_server_client_test", "hello")
        const heard = yield* Queue.take(notifications).pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(heard.payload, "hello")
        const listener = yield* sql<{ readonly pid: number }>`
          SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`
        assert.strictEqual(listener.length, 1)
        assert.isFalse(shared.has(listener[0]?.pid ?? -1))
      })))
})
