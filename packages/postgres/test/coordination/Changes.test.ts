/**
 * Changes on a real database. With KILN_TEST_DATABASE_URL the publisher and the subscriber are
 * adapters of their own, as two processes are: the subscriber hears a change only once the
 * publishing transaction commits, never a rolled-back one, and hears `Lost` when its listening
 * connection dies and `Listening` once it listens again. On PGlite publication is in-process.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Queue } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { type ChangeSignal, Changes } from "@kiln/domain/coordination/Changes"
import * as ChangesSql from "../../src/coordination/ChangesSql.ts"
import * as Coordination from "../../src/coordination/Coordination.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const onServer = process.env["KILN_TEST_DATABASE_URL"] !== undefined

const process_ = Effect.map(Layer.build(ChangesSql.layer({ acrossProcesses: onServer, retryAfter: 50 })), Context.get(Changes))

const listen = (changes: Changes["Service"], topic: string) =>
  Effect.gen(function*() {
    const signals = yield* Queue.unbounded<ChangeSignal>()
    yield* changes.subscribe(topic, (signal) => Queue.offer(signals, signal).pipe(Effect.asVoid))
    return signals
  })

const next = (signals: Queue.Queue<ChangeSignal>) => Queue.take(signals).pipe(Effect.timeout("5 seconds"))

layer(TestDatabase.layer, { timeout: "60 seconds" })("Changes", (it) => {
  it.effect("a change is heard by every subscriber of its topic once committed, and a rolled-back one never", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const publisher = yield* process_
      const subscriber = onServer ? yield* process_ : publisher
      const tokens = yield* listen(subscriber, "tokens")
      const users = yield* listen(subscriber, "users")
      // Listening is announced first (the listener may still be starting on a server).
      assert.deepStrictEqual(yield* next(tokens), { _tag: "Listening" })
      assert.deepStrictEqual(yield* next(users), { _tag: "Listening" })

      yield* sql.withTransaction(Effect.andThen(publisher.publish("tokens", "rolled-back"), Effect.fail("abort"))).pipe(Effect.ignore)
      yield* sql.withTransaction(publisher.publish("tokens", "7"))
      const heard = yield* next(tokens)
      // In-process publication cannot wait for a commit; a server never delivers the rolled-back one.
      if (onServer) assert.deepStrictEqual(heard, { _tag: "Changed", key: "7" })
      else assert.deepStrictEqual([heard, yield* next(tokens)], [{ _tag: "Changed", key: "rolled-back" }, { _tag: "Changed", key: "7" }])
      assert.strictEqual(yield* Queue.size(users), 0)
    }))))

  it.effect.skipIf(!onServer)("a subscriber hears Lost when its listener's connection dies, then Listening again", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const subscriber = yield* process_
      const publisher = yield* Effect.map(Layer.build(Coordination.layer), Context.get(Changes))
      const tokens = yield* listen(subscriber, "tokens")
      assert.deepStrictEqual(yield* next(tokens), { _tag: "Listening" })
      yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE query LIKE 'LISTEN%' AND datname = current_database() AND pid <> pg_backend_pid()`
      assert.deepStrictEqual(yield* next(tokens), { _tag: "Lost" })
      assert.deepStrictEqual(yield* next(tokens), { _tag: "Listening" })
      yield* publisher.publish("tokens", "after")
      assert.deepStrictEqual(yield* next(tokens), { _tag: "Changed", key: "after" })
    }))))
})
