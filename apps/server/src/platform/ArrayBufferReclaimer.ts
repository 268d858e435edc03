/**
 * Keeps the server's memory flat during large transfers (uploads, downloads, archives, git packs).
 *
 * Their bytes pass through short-lived ArrayBuffers, whose memory V8 frees only when a garbage
 * collection finds them dead. A transfer allocates almost no JavaScript per byte, so no
 * young-generation collection comes on its own, and V8 lets ~64 MB of dead buffers pile up (its
 * external-memory soft limit) before it collects: the server's resident memory grows by that much
 * during every large transfer. Measured on the archive benchmark: +54 MB without this, +10 MB with.
 *
 * Every `intervalMillis`, when ArrayBuffers hold more than `thresholdBytes` over what the last
 * collection left (the live ones: pack caches, the embedded database's), this runs a
 * young-generation collection: about 0.2 ms when nearly everything in it is dead, as it is here.
 * The check reads V8's external memory (the counter its own soft limit watches, which ArrayBuffers'
 * backing stores add to): 0.4 µs, where `process.memoryUsage()` costs 10-50 µs (it also reads the
 * resident size from /proc), 50 times a second, idle or not. Ordinary requests keep far fewer bytes
 * in ArrayBuffers than the threshold, so they never trigger it. Counted from zero instead, live
 * buffers above the threshold (a repository's pack cache after one fetch) made it collect every
 * interval, idle or not: 50 collections and ~30 ms of CPU a second.
 *
 * Every transfer's bytes come through a connection some server of this process accepted (HTTP,
 * SSH, the git processes' sockets, the control socket), so the checks run only while one is open
 * (AcceptedConnections.ts). Checking all the time woke an idle server 50 times a second, ~1% of a
 * core for nothing, and added ~2 ms to every git operation's CPU.
 */
import { Effect, Layer } from "effect"
import { getHeapStatistics } from "node:v8"
import { watchAcceptedConnections } from "./AcceptedConnections.ts"
import { collectGarbage } from "./GarbageCollector.ts"

export interface ReclaimerOptions {
  readonly intervalMillis: number
  readonly thresholdBytes: number
  /**
   * Told of each collection the reclaimer makes. V8 collects on its own too, at times of its
   * choosing, so memory alone cannot tell whether the reclaimer acted.
   */
  readonly onCollect?: () => void
}

export const defaults: ReclaimerOptions = { intervalMillis: 20, thresholdBytes: 4 * 1024 * 1024 }

export const layer = (options: ReclaimerOptions = defaults): Layer.Layer<never> =>
  Layer.effectDiscard(Effect.acquireRelease(
    Effect.sync(() => {
      const collect = collectGarbage()
      // What was alive after the last collection, lowered as live buffers are let go.
      let floor = 0
      const check = () => {
        const held = getHeapStatistics().external_memory
        floor = Math.min(floor, held)
        if (held <= floor + options.thresholdBytes) return
        collect({ type: "minor" })
        floor = getHeapStatistics().external_memory
        options.onCollect?.()
      }
      let timer: ReturnType<typeof setInterval> | undefined
      const unwatch = watchAcceptedConnections({
        first: () => {
          timer = setInterval(check, options.intervalMillis)
          // The check never keeps the process alive by itself.
          timer.unref()
        },
        last: () => {
          clearInterval(timer)
          timer = undefined
          // What the last transfer left goes now, not at V8's limit.
          check()
        }
      })
      return () => {
        unwatch()
        clearInterval(timer)
      }
    }),
    (stop) => Effect.sync(stop)
  ))
