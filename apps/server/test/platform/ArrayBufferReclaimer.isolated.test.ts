import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, type Scope } from "effect"
import { connect, createServer, type Socket } from "node:net"
import * as ArrayBufferReclaimer from "../../src/platform/ArrayBufferReclaimer.ts"
import { collectGarbage } from "../../src/platform/GarbageCollector.ts"

const MB = 1024 * 1024

const sleep = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/**
 * What a transfer leaves behind: 48 MB in 64 KB chunks, each dead once passed on, a megabyte per
 * turn of the event loop (the reclaimer's checks come in between, as in a real transfer). Its
 * result is the bytes passed.
 */
const passChunks = Effect.gen(function*() {
  let passed = 0
  for (let turn = 0; turn < 48; turn++) {
    for (let i = 0; i < 16; i++) passed += Buffer.allocUnsafeSlow(64 * 1024).length
    yield* sleep(1)
  }
  return passed
})

/**
 * What may be left of 48 MB once reclaimed: up to the threshold (4 MB) of dead buffers below the
 * trigger, whatever else the test worker allocates meanwhile, and the chunks made while V8 was
 * marking the old generation on its own (fromCollectedHeap). Without the reclaimer over 32 MB stays
 * until V8 collects by its own rules.
 */
const RECLAIMED_BOUND = 16 * MB

/**
 * A reclaimer that counts the collections it makes. V8 also collects by itself when it sees fit
 * (on a loaded machine, within a test's few hundred milliseconds at times), so whether memory went
 * down says nothing of the reclaimer by itself: the tests ask whether it collected, then whether
 * that freed the buffers.
 */
const countedReclaimer = (options: { readonly intervalMillis: number; readonly thresholdBytes: number }) => {
  const made = { collections: 0 }
  const layer = ArrayBufferReclaimer.layer({ ...options, onCollect: () => void made.collections++ })
  return { made, layer }
}

/**
 * Starts a test from a collected heap. V8 marks the old generation incrementally, and an
 * ArrayBuffer made while it marks counts as alive for that whole cycle: a collection that ends the
 * cycle (the reclaimer's minor one becomes that) keeps it, and only V8's next major collection
 * frees it. Buffers piled up (what another test left, or 48 MB passed with no check between) can
 * start such a cycle: 16-48 MB then stayed for seconds after the reclaimer collected, on a loaded
 * machine.
 */
const fromCollectedHeap = Effect.sync(() => collectGarbage()({ type: "major" }))

/** Waits up to `millis` for `done`; whether it came. */
const waitFor = (done: () => boolean, millis: number) =>
  Effect.gen(function*() {
    for (let waited = 0; !done() && waited < millis; waited += 10) yield* sleep(10)
    return done()
  })

/**
 * ArrayBuffers held now over `before`, once a collection freed what it could: V8 sweeps the buffers
 * a collection found dead on another thread, so the count falls shortly after.
 */
const heldOver = (before: number) =>
  Effect.gen(function*() {
    yield* waitFor(() => process.memoryUsage().arrayBuffers - before < RECLAIMED_BOUND, 200)
    return process.memoryUsage().arrayBuffers - before
  })

/**
 * A connection accepted by a server of this process, open until the scope closes: what a transfer
 * comes through, and what the reclaimer checks while it lasts. Closing it ends the server's socket.
 */
const openConnection: Effect.Effect<{ readonly close: Effect.Effect<void> }, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly server: ReturnType<typeof createServer>; readonly client: Socket }>((resolve) => {
      const server = createServer((accepted) => {
        accepted.resume()
        accepted.once("end", () => accepted.end())
        resolve({ server, client })
      })
      let client: Socket
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        client = connect(typeof address === "object" && address !== null ? address.port : 0, "127.0.0.1")
      })
    })
  ),
  ({ client, server }) =>
    Effect.promise(() =>
      new Promise<void>((resolve) => {
        client.end()
        server.close(() => resolve())
      })
    )
).pipe(Effect.map(({ client }) => ({
  close: Effect.promise(() => new Promise<void>((resolve) => client.end(() => client.once("close", () => resolve()))))
})))

describe("ArrayBufferReclaimer", () => {
  it.effect("frees a transfer's dead buffers within a few checks", () =>
    Effect.scoped(Effect.gen(function*() {
      const reclaimer = countedReclaimer({ intervalMillis: 10, thresholdBytes: 4 * MB })
      yield* fromCollectedHeap
      yield* Layer.build(reclaimer.layer)
      yield* openConnection
      const before = process.memoryUsage().arrayBuffers
      assert.strictEqual(yield* passChunks, 48 * MB)
      assert.isTrue(yield* waitFor(() => reclaimer.made.collections > 0, 5_000))
      assert.isBelow(yield* heldOver(before), RECLAIMED_BOUND)
    })))

  it.effect("leaves ordinary amounts alone: below the threshold nothing is collected", () =>
    Effect.scoped(Effect.gen(function*() {
      const reclaimer = countedReclaimer({ intervalMillis: 10, thresholdBytes: 1024 * MB })
      yield* Layer.build(reclaimer.layer)
      yield* openConnection
      assert.strictEqual(yield* passChunks, 48 * MB)
      yield* sleep(200)
      assert.strictEqual(reclaimer.made.collections, 0)
    })))

  it.effect("counts from what is alive: live buffers above the threshold do not make it collect while nothing dies", () =>
    Effect.scoped(Effect.gen(function*() {
      const live = Array.from({ length: 256 }, () => Buffer.allocUnsafeSlow(64 * 1024))
      const reclaimer = countedReclaimer({ intervalMillis: 10, thresholdBytes: 4 * MB })
      yield* Layer.build(reclaimer.layer)
      yield* openConnection
      // The first check collects once and learns what is alive.
      yield* sleep(200)
      const learned = reclaimer.made.collections
      yield* sleep(500)
      // ~50 checks with 16 MB alive; counted from zero each would have collected.
      assert.isBelow(reclaimer.made.collections - learned, 3)
      // Dead buffers on top of the live ones still make it collect: several times over 48 MB, one
      // per 4 MB passed between two checks. (What the collections free is the first test's
      // question: here V8 at times marks the 16 MB on its own meanwhile, which keeps the chunks
      // made during that marking alive through its end.)
      const counted = reclaimer.made.collections
      assert.strictEqual(yield* passChunks, 48 * MB)
      assert.isAbove(reclaimer.made.collections - counted, 1)
      assert.strictEqual(live.length, 256)
    })))

  it.effect("collects what the last connection left as it closes", () =>
    Effect.scoped(Effect.gen(function*() {
      // No check comes from the interval here: only the one made as the connection closes. (What a
      // collection frees is the first test's question: with no check during the transfer, 48 MB
      // piled up at times made V8 start marking by itself, see fromCollectedHeap.)
      const reclaimer = countedReclaimer({ intervalMillis: 60_000, thresholdBytes: 4 * MB })
      yield* Layer.build(reclaimer.layer)
      const connection = yield* openConnection
      assert.strictEqual(yield* passChunks, 48 * MB)
      assert.strictEqual(reclaimer.made.collections, 0)
      yield* connection.close
      assert.isTrue(yield* waitFor(() => reclaimer.made.collections > 0, 5_000))
    })))
})
