/**
 * Gives back the memory start-up used and no longer needs, once the server is up.
 *
 * Starting allocates a lot in little time (modules, layers, PGlite's start, the first queries):
 * V8 grows its young generation for it, and keeps the pages it freed afterwards, so a server
 * idling after start held ~40 MB that no object used (measured with `pnpm bench -- --only memory`
 * on the embedded database: 222 MB resident, 65 MB of it in V8's pages while V8 counted 43 MB of
 * heap). Neither its own memory reducer nor a regular full collection returns them; a last-resort
 * collection does (one pause of tens of milliseconds, once): 222 → ~180 MB.
 */
import { Duration, Effect, Layer } from "effect"
import { collectGarbage } from "./GarbageCollector.ts"

/** After `settle`, so that the work forked at start (statistics, repairs, job claims) has allocated what it does. */
export const release = (settle: Duration.Input = Duration.seconds(1)): Effect.Effect<void> =>
  Effect.sleep(settle).pipe(
    Effect.andThen(Effect.sync(() => {
      const before = process.memoryUsage().rss
      const started = performance.now()
      collectGarbage()({ type: "major", execution: "sync", flavor: "last-resort" })
      return { before, after: process.memoryUsage().rss, millis: performance.now() - started }
    })),
    Effect.flatMap(({ before, after, millis }) =>
      Effect.logInfo(
        `start-up memory released: ${(before / 1e6).toFixed(0)} -> ${(after / 1e6).toFixed(0)} MB resident in ${millis.toFixed(0)} ms`
      ))
  )

/** Releases in the background once built: build it after the server. */
export const layer: Layer.Layer<never> = Layer.effectDiscard(Effect.forkScoped(release()))
