/**
 * What the standalone server does with an error no code caught (`main.ts` installs it; a service
 * that embeds Kiln keeps its own process policy):
 *
 * - An unhandled promise rejection is logged as an error, with its stack, and the server keeps
 *   running. The code that rejected has already unwound, so no state is left half-changed by it,
 *   while Node's default (exit) turns any such latent bug into an outage for every user, and one
 *   reached from stored data (a webhook, a job) into a crash loop.
 * - An uncaught exception is logged the same way, then the process exits with status 1, as Node's
 *   default does: it was thrown out of a callback midway, so the process's state is unknown and
 *   resuming is not safe. A supervisor restarts the server; a job whose run keeps ending its
 *   process is parked after a few runs (JobWorker), so this cannot loop.
 */
import { Effect, Layer } from "effect"

const describe = (error: unknown): string =>
  error instanceof Error ? error.stack ?? `${error.name}: ${error.message}` : String(error)

export const layer: Layer.Layer<never> = Layer.effectDiscard(Effect.gen(function*() {
  const context = yield* Effect.context<never>()
  const log = (message: string, error: unknown) =>
    Effect.runSyncWith(context)(Effect.logError(message, describe(error)))

  const onRejection = (reason: unknown) => log("unhandled promise rejection (the server keeps running)", reason)
  const onException = (error: unknown) => {
    log("uncaught exception: the server stops, its state is unknown", error)
    process.exit(1)
  }
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.on("unhandledRejection", onRejection)
      process.on("uncaughtException", onException)
    }),
    () =>
      Effect.sync(() => {
        process.off("unhandledRejection", onRejection)
        process.off("uncaughtException", onException)
      })
  )
}))
