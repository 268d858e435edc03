/**
 * The failure store with the failing keys known in memory (KnownFailures), on a real database. With
 * KILN_TEST_DATABASE_URL the two stores follow changes through listeners of their own, as two
 * processes do; on PGlite publication is in-process. A clean key is answered from memory; a failure
 * counted through either store, or before a store started listening, is seen by the other.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as KnownFailures from "@kiln/domain/auth/KnownFailures"
import { SignInFailureStore } from "@kiln/domain/auth/SignInFailureStore"
import { Changes } from "@kiln/domain/coordination/Changes"
import * as ChangesSql from "../../src/coordination/ChangesSql.ts"
import * as SignInFailureStoreSql from "../../src/stores/SignInFailureStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { layer as migrations } from "../../src/migrations/index.ts"

const onServer = process.env["KILN_TEST_DATABASE_URL"] !== undefined

const WINDOW = 600_000

/** A following store over the table, its own reads of open windows counted. */
const followingStore = (changes: Changes["Service"], reads: { count: number }) =>
  Effect.map(
    Layer.build(KnownFailures.followingStore.pipe(
      Layer.provide(Layer.effect(SignInFailureStore, Effect.map(Effect.service(SignInFailureStore), (table) =>
        SignInFailureStore.of({
          ...table,
          openWindows: (keys, window, now) => Effect.tap(table.openWindows(keys, window, now), () => Effect.sync(() => reads.count++))
        })))),
      Layer.provide(Layer.fresh(SignInFailureStoreSql.layer)),
      Layer.provide(Layer.succeed(Changes, changes))
    )),
    Context.get(SignInFailureStore)
  )

const changesOfAProcess = Effect.map(Layer.build(ChangesSql.layer({ acrossProcesses: onServer, retryAfter: 50 })), Context.get(Changes))

/** `open` answers a window for `key` within 5 s. */
const eventuallyOpen = (open: Effect.Effect<ReadonlyArray<{ readonly key: string }>>, key: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((yield* open).some((window) => window.key === key)) return true
      yield* Effect.sleep("50 millis")
    }
    return false
  })

/** `open` is answered without reading the table within 5 s (a store listens once its listener has started). */
const answeredFromMemory = (open: Effect.Effect<unknown>, reads: { readonly count: number }) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 100; attempt++) {
      const before = reads.count
      yield* open
      if (reads.count === before) return true
      yield* Effect.sleep("50 millis")
    }
    return false
  })

layer(migrations.pipe(Layer.provideMerge(TestDatabase.layer)), { timeout: "60 seconds" })("KnownFailures", (it) => {
  it.effect("answers clean keys from memory, and every failure counted through either store, or before, from the table", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const firstChanges = yield* changesOfAProcess
      const firstReads = { count: 0 }
      const first = yield* followingStore(firstChanges, firstReads)
      const now = () => Date.now()
      // Counted before the second store existed.
      yield* first.record(["address:192.0.2.1"], WINDOW, now())

      const secondReads = { count: 0 }
      const second = yield* followingStore(onServer ? yield* changesOfAProcess : firstChanges, secondReads)
      assert.isTrue(yield* eventuallyOpen(second.openWindows(["address:192.0.2.1"], WINDOW, now()), "address:192.0.2.1"))

      // Once listening and read, a clean key costs no query.
      assert.isTrue(yield* answeredFromMemory(second.openWindows(["address:192.0.2.8"], WINDOW, now()), secondReads))
      const reads = secondReads.count
      for (let n = 0; n < 20; n++) assert.deepStrictEqual(yield* second.openWindows([`account:${n}@192.0.2.9`, "address:192.0.2.9"], WINDOW, now()), [])
      assert.strictEqual(secondReads.count, reads, "answered from memory")

      // Counted through the first store: the second hears of it.
      yield* first.record(["account:7@192.0.2.9", "address:192.0.2.9"], WINDOW, now())
      assert.isTrue(yield* eventuallyOpen(second.openWindows(["account:7@192.0.2.9"], WINDOW, now()), "account:7@192.0.2.9"))
      assert.isTrue(yield* eventuallyOpen(second.openWindows(["address:192.0.2.9"], WINDOW, now()), "address:192.0.2.9"))
      // Counted through itself: known at once.
      yield* second.record(["address:192.0.2.10"], WINDOW, now())
      assert.deepStrictEqual((yield* second.openWindows(["address:192.0.2.10"], WINDOW, now())).map((window) => window.failures), [1])
      // A sign-in that succeeded takes its attempt back: a key left without failures is clean again
      // for the other store, from memory.
      yield* second.record(["address:192.0.2.11"], WINDOW, now())
      assert.isTrue(yield* eventuallyOpen(first.openWindows(["address:192.0.2.11"], WINDOW, now()), "address:192.0.2.11"))
      assert.deepStrictEqual(yield* second.forgive([], ["address:192.0.2.11"]), ["address:192.0.2.11"])
      assert.isTrue(yield* answeredFromMemory(first.openWindows(["address:192.0.2.11"], WINDOW, now()), firstReads), "the clear key")
      // A store that starts now reads the table's open windows, but not those left at no failures.
      const thirdReads = { count: 0 }
      const third = yield* followingStore(onServer ? yield* changesOfAProcess : firstChanges, thirdReads)
      assert.isTrue(yield* answeredFromMemory(third.openWindows(["address:192.0.2.11"], WINDOW, now()), thirdReads))
      assert.deepStrictEqual(yield* third.openWindows(["address:192.0.2.11"], WINDOW, now()), [])
      // A window that ended is clean again.
      assert.deepStrictEqual(yield* second.openWindows(["address:192.0.2.10"], WINDOW, now() + WINDOW + 1), [])
    }))))
})
