import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PerformanceObserver } from "node:perf_hooks"
import * as ArrayBufferReclaimer from "../../src/platform/ArrayBufferReclaimer.ts"

const MB = 1024 * 1024

/** What a transfer leaves behind: 48 MB in 64 KB chunks, each dead once passed on. */
const passChunks = () => {
  let checksum = 0
  for (let i = 0; i < 768; i++) checksum += Buffer.allocUnsafeSlow(64 * 1024).length
  return checksum
}

/**
 * What may be left of 48 MB once reclaimed: up to the threshold (4 MB) of dead buffers below the
 * trigger, and whatever else the test worker allocates meanwhile (8.8 MB were left in all once, under
 * a bound of 8). Without the reclaimer over 32 MB stays.
 */
const RECLAIMED_BOUND = 12 * MB

const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))

const arrayBuffersAfterTransfer = (reclaimer: Layer.Layer<never>) =>
  Effect.scoped(Effect.gen(function*() {
    yield* Layer.build(reclaimer)
    const before = process.memoryUsage().arrayBuffers
    assert.strictEqual(passChunks(), 48 * MB)
    yield* settle
    return process.memoryUsage().arrayBuffers - before
  }))

describe("ArrayBufferReclaimer", () => {
  it.effect("frees a transfer's dead buffers within a few checks", () =>
    Effect.gen(function*() {
      const left = yield* arrayBuffersAfterTransfer(ArrayBufferReclaimer.layer({ intervalMillis: 10, thresholdBytes: 4 * MB }))
      assert.isBelow(left, RECLAIMED_BOUND)
    }))

  it.effect("leaves ordinary amounts alone: below the threshold nothing is collected", () =>
    Effect.gen(function*() {
      const left = yield* arrayBuffersAfterTransfer(ArrayBufferReclaimer.layer({ intervalMillis: 10, thresholdBytes: 1024 * MB }))
      // V8 by itself keeps them until its own limit: this is what the reclaimer is for.
      assert.isAbove(left, 32 * MB)
    }))

  it.effect("counts from what is alive: live buffers above the threshold do not make it collect while nothing dies", () =>
    Effect.scoped(Effect.gen(function*() {
      const live = Array.from({ length: 256 }, () => Buffer.allocUnsafeSlow(64 * 1024))
      yield* Layer.build(ArrayBufferReclaimer.layer({ intervalMillis: 10, thresholdBytes: 4 * MB }))
      yield* settle
      let collections = 0
      const observer = new PerformanceObserver((entries) => {
        collections += entries.getEntries().length
      })
      observer.observe({ entryTypes: ["gc"] })
      yield* Effect.addFinalizer(() => Effect.sync(() => observer.disconnect()))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
      // ~50 checks with 16 MB alive; counted from zero each would have collected.
      assert.isBelow(collections, 5)
      // Dead buffers on top of the live ones are still freed.
      const before = process.memoryUsage().arrayBuffers
      assert.strictEqual(passChunks(), 48 * MB)
      yield* settle
      assert.isBelow(process.memoryUsage().arrayBuffers - before, RECLAIMED_BOUND)
      assert.strictEqual(live.length, 256)
    })))
})
