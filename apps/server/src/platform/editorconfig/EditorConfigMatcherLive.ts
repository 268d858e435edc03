/**
 * EditorConfigMatcher off the main thread: the file is refused when it is past the limits
 * (EDITORCONFIG_LIMITS), otherwise matched by the `editorconfig` library in a worker thread
 * (EditorConfigWorker.ts) that is stopped after `MATCH_TIME_LIMIT_MILLIS`, `MAX_QUEUED_MATCHES` at
 * most waiting for it. The library (with its
 * WebAssembly INI parser, ~8 MB) is loaded only by that thread, with the first lookup.
 */
import { Effect, Layer } from "effect"
import { Invalid } from "@kiln/domain/errors"
import { EditorConfigBusy, EditorConfigMatcher, editorConfigProblem } from "@kiln/domain/repo/EditorConfig"
import { makeMatchingThread } from "./MatchingThread.ts"

/** A match that takes longer is stopped and answered with 422 (real files match in a millisecond). */
export const MATCH_TIME_LIMIT_MILLIS = 1_000

/**
 * Lookups that may wait for the matching thread (at most this many seconds of matching); more are
 * answered 503 with Retry-After, so that a client cannot queue work for everyone else to wait behind.
 */
export const MAX_QUEUED_MATCHES = 16

export const layer = Layer.effect(
  EditorConfigMatcher,
  Effect.gen(function*() {
    const thread = yield* Effect.acquireRelease(
      Effect.sync(() => makeMatchingThread(MATCH_TIME_LIMIT_MILLIS, MAX_QUEUED_MATCHES)),
      (thread) => Effect.promise(() => thread.close())
    )
    return EditorConfigMatcher.of({
      propertiesFor: (config, fileName) =>
        Effect.gen(function*() {
          const problem = editorConfigProblem(new TextDecoder().decode(config))
          if (problem !== undefined) return yield* new Invalid({ message: problem })
          const outcome = yield* Effect.promise((signal) => thread.match(config, fileName, signal))
          switch (outcome._tag) {
            case "Matched":
              return outcome.properties
            case "Failed":
              return yield* new Invalid({ message: `cannot read .editorconfig: ${outcome.message}` })
            case "TimedOut":
              return yield* new Invalid({
                message: `matching .editorconfig took longer than ${MATCH_TIME_LIMIT_MILLIS} ms and was stopped`
              })
            case "Busy":
              return yield* new EditorConfigBusy({
                message: "too many .editorconfig lookups are waiting; try again later",
                retryAfterSeconds: Math.ceil(MATCH_TIME_LIMIT_MILLIS / 1000)
              })
          }
        })
    })
  })
)
