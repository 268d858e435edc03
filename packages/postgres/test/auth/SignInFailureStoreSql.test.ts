/**
 * Failed sign-ins counted in the database (migration 0014), on PGlite or, with
 * KILN_TEST_DATABASE_URL, on a server, where the second store has a connection pool of its own to
 * the same database, as a second server process has: what one counts, the other sees.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { refusalMillis, SignInFailureStore } from "@kiln/domain/auth/SignInFailureStore"
import * as Database from "../../src/Database.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as SignInFailureStoreSql from "../../src/stores/SignInFailureStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]

const storeOn = (client: Layer.Layer<Database.Client, unknown>) =>
  Effect.map(
    Layer.build(SignInFailureStoreSql.layer.pipe(Layer.provide(migrations.pipe(Layer.provideMerge(client))), Layer.orDie)),
    Context.get(SignInFailureStore)
  )

/** Two stores on one new database: as two processes on a server, or as one embedded process twice. */
const twoStores = Effect.gen(function*() {
  if (serverUrl === undefined) {
    const shared = Layer.succeedContext(yield* Layer.build(Layer.orDie(TestDatabase.layer)))
    return [yield* storeOn(shared), yield* storeOn(shared)] as const
  }
  const url = yield* Effect.orDie(TestDatabase.serverDatabase(Redacted.make(serverUrl)))
  return [yield* storeOn(Database.layerServer(url)), yield* storeOn(Database.layerServer(url))] as const
})

const WINDOW = 1_000

describe("SignInFailureStoreSql", () => {
  it.live("counts failures in a window opened by the first, and opens a new one once it ended", () =>
    Effect.scoped(Effect.gen(function*() {
      const [store] = yield* twoStores
      assert.deepStrictEqual(yield* store.record(["account:1"], WINDOW, 100), [{ key: "account:1", startedAt: 100, failures: 1 }])
      assert.deepStrictEqual(yield* store.record(["account:1"], WINDOW, 500), [{ key: "account:1", startedAt: 100, failures: 2 }])
      let windows = yield* store.openWindows(["account:1", "account:2"], WINDOW, 600)
      assert.deepStrictEqual(windows, [{ key: "account:1", startedAt: 100, failures: 2 }])
      assert.strictEqual(refusalMillis(windows, "account:1", 2, WINDOW, 600), 0)
      yield* store.record(["account:1"], WINDOW, 700)
      windows = yield* store.openWindows(["account:1"], WINDOW, 800)
      assert.strictEqual(refusalMillis(windows, "account:1", 2, WINDOW, 800), 300, "3 failures are more than 2")
      assert.strictEqual(refusalMillis(windows, "account:1", 3, WINDOW, 800), 0, "3 failures are not more than 3")
      assert.strictEqual(refusalMillis(windows, "account:2", 2, WINDOW, 800), 0)
      assert.strictEqual(refusalMillis(windows, "account:1", 0, WINDOW, 800), 0, "a limit of 0 never refuses")
      assert.deepStrictEqual(yield* store.openWindows(["account:1"], WINDOW, 1_100), [], "the window ended")
      // The next failure opens a new window with one failure.
      yield* store.record(["account:1"], WINDOW, 1_200)
      assert.deepStrictEqual(yield* store.openWindows(["account:1"], WINDOW, 1_300), [{ key: "account:1", startedAt: 1_200, failures: 1 }])
    })))

  it.live("forgives a sign-in that succeeded (a key cleared, a key's one failure taken back), and keys in one call once each", () =>
    Effect.scoped(Effect.gen(function*() {
      const [store] = yield* twoStores
      yield* store.record(["account:1", "address:10.0.0.1", "address:10.0.0.1"], WINDOW, 100)
      assert.deepStrictEqual(
        (yield* store.openWindows(["account:1", "address:10.0.0.1"], WINDOW, 200)).map((window) => [window.key, window.failures]).sort(),
        [["account:1", 1], ["address:10.0.0.1", 1]]
      )
      yield* store.record(["address:10.0.0.1"], WINDOW, 150)
      // The account's failures are gone; the address has one left.
      assert.deepStrictEqual(yield* store.forgive(["account:1"], ["address:10.0.0.1"]), ["account:1"])
      assert.deepStrictEqual(yield* store.openWindows(["account:1", "address:10.0.0.1"], WINDOW, 200), [
        { key: "address:10.0.0.1", startedAt: 100, failures: 1 }
      ])
      // Never below none.
      assert.deepStrictEqual([...new Set(yield* store.forgive([], ["address:10.0.0.1", "address:10.0.0.1"]))], ["address:10.0.0.1"])
      assert.deepStrictEqual(yield* store.forgive([], ["address:10.0.0.1", "address:10.0.0.2"]), ["address:10.0.0.1", "address:10.0.0.2"])
      assert.deepStrictEqual(yield* store.openWindows(["address:10.0.0.1"], WINDOW, 200), [{ key: "address:10.0.0.1", startedAt: 100, failures: 0 }])
    })))

  it.live("one count for every process: failures counted through one store refuse through the other", () =>
    Effect.scoped(Effect.gen(function*() {
      const [first, second] = yield* twoStores
      for (let at = 0; at < 5; at++) yield* (at % 2 === 0 ? first : second).record(["account:7"], 60_000, 1_000 + at)
      const seen = yield* second.openWindows(["account:7"], 60_000, 2_000)
      assert.deepStrictEqual(seen, [{ key: "account:7", startedAt: 1_000, failures: 5 }])
      assert.strictEqual(refusalMillis(seen, "account:7", 4, 60_000, 2_000), 59_000)
      yield* first.forgive(["account:7"], [])
      assert.deepStrictEqual(yield* second.openWindows(["account:7"], 60_000, 2_000), [])
    })))
})
