import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import type { Duplex } from "node:stream"
import * as PgliteBridge from "../src/PgliteBridge.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

/** A pooled client over the bridge with several connections, the case Database avoids. */
const pooledClient = (connections: number) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase.pglite
    const context = yield* Layer.build(PgClient.layer({
      stream: () => PgliteBridge.connect(db),
      username: "postgres",
      database: "postgres",
      maxConnections: connections,
      minConnections: connections
    }))
    return { db, sql: Context.get(context, SqlClient.SqlClient) }
  })

// Raw protocol, for what PgClient never does on its own (SSL negotiation, vanishing mid-transaction).
const untyped = (code: number, body: Buffer = Buffer.alloc(0)): Buffer => {
  const header = Buffer.alloc(8)
  header.writeInt32BE(8 + body.length, 0)
  header.writeInt32BE(code, 4)
  return Buffer.concat([header, body])
}
const startup = untyped(196608, Buffer.from("user\0postgres\0database\0postgres\0\0"))
const query = (text: string): Buffer => {
  const body = Buffer.from(`${text}\0`)
  const header = Buffer.alloc(5)
  header.write("Q", 0)
  header.writeInt32BE(4 + body.length, 1)
  return Buffer.concat([header, body])
}

/** Writes, then collects the answer until a ReadyForQuery with the given status (or one byte). */
const exchange = (stream: Duplex, bytes: Buffer, until: (output: Buffer) => boolean) =>
  Effect.callback<Buffer>((resume) => {
    let output = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      output = Buffer.concat([output, chunk])
      if (until(output)) {
        stream.off("data", onData)
        resume(Effect.succeed(output))
      }
    }
    stream.on("data", onData)
    stream.write(bytes)
  })
const readyWith = (status: string) => (output: Buffer) =>
  output.length >= 6 && output[output.length - 6] === 0x5a && output.subarray(-1).toString() === status

describe("PgliteBridge", () => {
  it.effect("a transaction on one pooled connection makes the others wait, and they see its rollback", () =>
    Effect.gen(function*() {
      const { sql } = yield* pooledClient(4)
      yield* sql`CREATE TABLE items (id int)`
      const events: Array<string> = []
      const inserted = yield* Deferred.make<void>()
      const transaction = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO items VALUES (1)`
        yield* Deferred.succeed(inserted, undefined)
        // Long enough for the query below to reach the bridge while the transaction is open.
        yield* TestClock.withLive(Effect.sleep("200 millis"))
        events.push("rolling back")
        return yield* Effect.fail("abort" as const)
      })).pipe(Effect.flip, Effect.forkChild)
      yield* Deferred.await(inserted)
      const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM items`
      events.push("counted")
      assert.strictEqual(yield* Fiber.join(transaction), "abort")
      assert.deepStrictEqual(events, ["rolling back", "counted"])
      assert.deepStrictEqual(rows, [{ n: 0 }])
    }))

  it.effect("concurrent transactions on different connections commit or roll back whole", () =>
    Effect.gen(function*() {
      const { sql } = yield* pooledClient(4)
      yield* sql`CREATE TABLE items (tx int, n int)`
      yield* Effect.forEach(
        Array.from({ length: 8 }, (_, tx) => tx),
        (tx) =>
          sql.withTransaction(Effect.gen(function*() {
            for (let n = 0; n < 5; n++) yield* sql`INSERT INTO items VALUES (${tx}, ${n})`
            // Odd transactions roll back: in a shared session without the lock, their ROLLBACK
            // would also undo rows of the others, or another's COMMIT would keep theirs.
            if (tx % 2 === 1) return yield* Effect.fail(tx)
          })).pipe(Effect.ignore),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        yield* sql`SELECT tx, count(*)::int AS n FROM items GROUP BY tx ORDER BY tx`,
        [{ tx: 0, n: 5 }, { tx: 2, n: 5 }, { tx: 4, n: 5 }, { tx: 6, n: 5 }]
      )
    }))

  it.effect("answers SSLRequest with N, and a connection that vanishes mid-transaction is rolled back and reset", () =>
    Effect.gen(function*() {
      const { db, sql } = yield* pooledClient(1)
      yield* sql`CREATE TABLE items (id int)`
      const raw = PgliteBridge.connect(db)
      const ssl = yield* exchange(raw, untyped(80877103), (output) => output.length >= 1)
      assert.strictEqual(ssl.toString(), "N")
      yield* exchange(raw, startup, readyWith("I"))
      yield* exchange(raw, query("PREPARE leftover AS SELECT 1"), readyWith("I"))
      yield* exchange(raw, query("BEGIN; INSERT INTO items VALUES (1)"), readyWith("T"))
      raw.destroy()
      // Would hang if the vanished connection still held the session.
      assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM items`, [{ n: 0 }])
      assert.deepStrictEqual(
        yield* sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'leftover'`,
        [{ n: 0 }]
      )
    }))

  it.effect("hands a channel's notifications to its listeners, whichever connection committed, after a reset too", () =>
    Effect.gen(function*() {
      const { db, sql } = yield* pooledClient(2)
      yield* sql`CREATE TABLE items (id int)`
      yield* sql`
        CREATE FUNCTION items_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('items_changed', '');
          RETURN NULL;
        END
        $$`
      yield* sql`CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE ON items FOR EACH STATEMENT EXECUTE FUNCTION items_changed()`
      let heard = 0
      const stop = yield* Effect.promise(() => PgliteBridge.listen(db, "items_changed", () => heard++))
      yield* sql`INSERT INTO items VALUES (1)`
      assert.strictEqual(heard, 1)
      // Rolled back: nothing to hear. Read: nothing either.
      yield* sql.withTransaction(Effect.andThen(sql`INSERT INTO items VALUES (2)`, Effect.fail("undo"))).pipe(Effect.ignore)
      yield* sql`SELECT * FROM items`
      assert.strictEqual(heard, 1)
      // A closing connection's DISCARD ALL (UNLISTEN * among what it resets) leaves the session listening.
      const raw = PgliteBridge.connect(db)
      yield* exchange(raw, startup, readyWith("I"))
      yield* exchange(raw, query("UPDATE items SET id = 3"), readyWith("I"))
      assert.strictEqual(heard, 2)
      yield* Effect.callback<void>((resume) => {
        raw.once("close", () => resume(Effect.void))
        raw.destroy()
      })
      yield* Effect.promise(() => PgliteBridge.whenClosed(db))
      yield* sql`DELETE FROM items`
      assert.strictEqual(heard, 3)
      yield* Effect.promise(stop)
      yield* sql`INSERT INTO items VALUES (4)`
      assert.strictEqual(heard, 3)
      assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM pg_listening_channels()`, [{ n: 0 }])
    }))

  it.effect("closes a CancelRequest stream without touching the session", () =>
    Effect.gen(function*() {
      const { db, sql } = yield* pooledClient(1)
      const raw = PgliteBridge.connect(db)
      const cancel = Buffer.alloc(8)
      yield* Effect.callback<void>((resume) => {
        raw.once("close", () => resume(Effect.void))
        raw.write(untyped(80877102, cancel))
      })
      assert.deepStrictEqual(yield* sql`SELECT 1 AS one`, [{ one: 1 }])
    }))
})
