/**
 * WriteLocks on a real database. With KILN_TEST_DATABASE_URL each "process" is an adapter of its
 * own (its own lock connection), so exclusion is PostgreSQL's advisory locks; on PGlite there is
 * one process and the in-process semaphores are the lock.
 */
import { assert, layer } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Queue, Ref } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { Changes, type ChangeSignal } from "@kiln/domain/coordination/Changes"
import { WriteLocks } from "@kiln/domain/coordination/WriteLocks"
import * as ChangesSql from "../../src/coordination/ChangesSql.ts"
import * as Coordination from "../../src/coordination/Coordination.ts"
import * as WriteLocksSql from "../../src/coordination/WriteLocksSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const onServer = process.env["KILN_TEST_DATABASE_URL"] !== undefined

/** A WriteLocks of its own, as another process would have. */
const process_ = Effect.map(Layer.build(Coordination.layer), Context.get(WriteLocks))

layer(TestDatabase.layer, { timeout: "60 seconds" })("WriteLocks", (it) => {
  it.effect("sections of one key never overlap, whichever process runs them; other keys run alongside", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const first = yield* process_
      const second = onServer ? yield* process_ : first
      const inside = yield* Ref.make(0)
      const most = yield* Ref.make(0)
      const section = Effect.gen(function*() {
        const now = yield* Ref.updateAndGet(inside, (n) => n + 1)
        yield* Ref.update(most, (m) => Math.max(m, now))
        yield* Effect.sleep("15 millis")
        yield* Ref.update(inside, (n) => n - 1)
      })
      yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        (i % 2 === 0 ? first : second).withLock("repository:1", section), { concurrency: "unbounded", discard: true })
      assert.strictEqual(yield* Ref.get(most), 1)

      // Another key is not held up by a held one.
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(first.withLock("repository:2", Effect.andThen(Deferred.succeed(held, undefined), Deferred.await(release))))
      yield* Deferred.await(held)
      assert.strictEqual(yield* second.withLock("repository:3", Effect.succeed("ran")), "ran")
      // whenFree does not wait for a held key, and runs on a free one.
      assert.isUndefined(yield* second.whenFree("repository:2", Effect.succeed("ran")))
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* second.whenFree("repository:2", Effect.succeed("ran")), "ran")
    }))))

  it.effect("a failing or interrupted section releases its key", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const first = yield* process_
      const second = onServer ? yield* process_ : first
      const failed = yield* Effect.flip(first.withLock("repository:4", Effect.fail("boom")))
      assert.strictEqual(failed, "boom")
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(first.withLock("repository:4", Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* second.withLock("repository:4", Effect.succeed("free")), "free")
    }))))

  it.effect.skipIf(!onServer)("a process's locks go with its connection: a dead holder frees the key for others", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const first = yield* process_
      const second = yield* process_
      const started = yield* Deferred.make<void>()
      yield* Effect.forkChild(first.withLock("repository:5", Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
      yield* Deferred.await(started)
      assert.isUndefined(yield* second.whenFree("repository:5", Effect.succeed("ran")))
      // What SIGKILL does to the holder's session: the server ends it.
      yield* sql`SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
      assert.strictEqual(yield* second.withLock("repository:5", Effect.succeed("taken over")), "taken over")
    }))))

  it.effect.skipIf(!onServer)("a section waiting in another process asks again when it hears the release, not at its next poll", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      // Polls a minute apart: only the release's notice can let the waiter in within the test.
      const slowPolling = Effect.gen(function*() {
        const context = yield* Layer.build(
          WriteLocksSql.layer({ acrossProcesses: true, firstPoll: 60_000, longestPoll: 60_000 }).pipe(
            Layer.provideMerge(ChangesSql.layer({ acrossProcesses: true }))
          )
        )
        // Once its listener listens, a release cannot go unheard.
        const signals = yield* Queue.unbounded<ChangeSignal>()
        yield* Context.get(context, Changes).subscribe("test", (signal) => Queue.offer(signals, signal).pipe(Effect.asVoid))
        assert.deepStrictEqual(yield* Queue.take(signals), { _tag: "Listening" })
        return Context.get(context, WriteLocks)
      })
      const first = yield* slowPolling
      const second = yield* slowPolling
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(first.withLock("repository:6", Effect.andThen(Deferred.succeed(held, undefined), Deferred.await(release))))
      yield* Deferred.await(held)
      const waiter = yield* Effect.forkChild(second.withLock("repository:6", Effect.succeed("woken")))
      // The waiter has asked once and been refused.
      yield* Effect.sleep("300 millis")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* Fiber.join(waiter).pipe(Effect.timeout("10 seconds")), "woken")
    }))))

  it.effect.skipIf(!onServer)("a section whose lock connection drops is stopped, not left running unlocked (review 4b30e64, finding 32)", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const context = yield* Layer.build(
        WriteLocksSql.layer({ acrossProcesses: true, sessionCheck: 50 }).pipe(Layer.provideMerge(ChangesSql.layer({ acrossProcesses: true })))
      )
      const first = Context.get(context, WriteLocks)
      const second = yield* process_
      const started = yield* Deferred.make<void>()
      const cleanedUp = yield* Deferred.make<void>()
      const section = yield* Effect.forkChild(first.withLock(
        "repository:7",
        Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(Effect.onInterrupt(() => Deferred.succeed(cleanedUp, undefined)))
      ))
      yield* Deferred.await(started)
      // The connection drops (a network cut, a restarted pooler): the server ends the session and its locks.
      yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kiln-write-locks'
        AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`
      // Another process may now enter; the first section must not go on as if it held the lock.
      const exit = yield* Fiber.await(section).pipe(Effect.timeout("10 seconds"))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""), "WriteLockLost")
      yield* Deferred.await(cleanedUp).pipe(Effect.timeout("1 second"))
      assert.strictEqual(yield* second.withLock("repository:7", Effect.succeed("taken over")), "taken over")
      // The same adapter takes locks again on its new connection.
      assert.strictEqual(yield* first.withLock("repository:8", Effect.succeed("again")), "again")
    }))))
})
