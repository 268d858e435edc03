/**
 * The failure store, with the keys that may have failures now known in memory, so that a
 * remembered password's sign-in (SignInCache) is checked against the limits without a query: a
 * key no failure was counted for within the window has none, and its open windows are answered
 * empty from memory. Otherwise the table answers.
 *
 * Exactness: several processes may count failures in one table. Each failure counted publishes its
 * key on `topic` (with the time it was counted), and every process (this one at once) marks the key
 * as failing until a window after that time. A sign-in that succeeded takes its counted attempt
 * back (SignInFailureStore.forgive); a key left without failures is published as clear, and
 * unmarked. PostgreSQL delivers notifications in commit order, so a failure counted after the
 * clear marks the key again, and one counted before it is still in the count that was not clear. What was counted before a process heard changes is
 * read from the table once listening (a failure counted after that is heard). While a process does
 * not hear changes (its listener is starting or disconnected), or knows too many keys to keep, the
 * table answers every question. A failure counted in another process is thus seen here as soon as
 * its notification arrives, a millisecond or so after its count commits.
 */
import { Effect, Layer } from "effect"
import { type ChangeSignal, Changes } from "../coordination/Changes.ts"
import { SignInFailureStore } from "./SignInFailureStore.ts"

/**
 * The Changes topic of counted failures; keys are `<epoch milliseconds> <failure key>` for a
 * failure counted then, `clear <failure key>` for a key left without failures.
 */
export const topic = "sign-in-failures"

const CLEAR = "clear"

/** Keys known at most; past it (an attack from very many addresses) the table answers for a window. */
const MAX_KNOWN = 100_000

const DEFAULT_WINDOW_MILLIS = 900_000

export const followingStore: Layer.Layer<SignInFailureStore, never, SignInFailureStore | Changes> = Layer.effect(
  SignInFailureStore,
  Effect.gen(function*() {
    const store = yield* SignInFailureStore
    const changes = yield* Changes
    // Key → the latest time a failure of it was counted: it may be failing for a window after that.
    const failing = new Map<string, number>()
    let listening = false
    let generation = 0
    /** The generation the table's open windows were read in; undefined until read. */
    let loadedIn: number | undefined
    let loadingIn: number | undefined
    /** Until when memory is not trusted, having known too many keys. */
    let overflowUntil = 0
    let windowMillis = DEFAULT_WINDOW_MILLIS

    const mark = (key: string, at: number) => {
      const known = failing.get(key)
      if (known === undefined || known < at) failing.set(key, at)
      if (failing.size <= MAX_KNOWN) return
      for (const [candidate, countedAt] of failing) {
        if (countedAt <= at - windowMillis) failing.delete(candidate)
      }
      if (failing.size > MAX_KNOWN) {
        failing.clear()
        overflowUntil = at + windowMillis
      }
    }

    const onSignal = (signal: ChangeSignal): Effect.Effect<void> =>
      Effect.sync(() => {
        if (signal._tag === "Changed") {
          const space = signal.key.indexOf(" ")
          if (space < 0) return
          const what = signal.key.slice(0, space)
          const key = signal.key.slice(space + 1)
          const at = Number(what)
          if (what === CLEAR) failing.delete(key)
          else if (Number.isFinite(at)) mark(key, at)
          return
        }
        // Whatever was counted while changes went unheard is in the table only.
        generation++
        failing.clear()
        loadedIn = undefined
        listening = signal._tag === "Listening"
      })
    yield* changes.subscribe(topic, onSignal)

    /** The table's open windows, read once per generation: failures counted before this process heard. */
    const load = (window: number, now: number) =>
      Effect.gen(function*() {
        const startedIn = generation
        loadingIn = startedIn
        const open = yield* store.recentWindows(window, now, MAX_KNOWN + 1).pipe(
          Effect.ensuring(Effect.sync(() => {
            if (loadingIn === startedIn) loadingIn = undefined
          }))
        )
        if (generation !== startedIn) return
        if (open.length > MAX_KNOWN) overflowUntil = now + window
        else for (const found of open) if (found.failures > 0) mark(found.key, found.startedAt)
        loadedIn = startedIn
      })

    const known = (now: number) => listening && loadedIn === generation && now >= overflowUntil

    return SignInFailureStore.of({
      ...store,
      openWindows: (keys, window, now) =>
        Effect.gen(function*() {
          windowMillis = window
          if (listening && loadedIn !== generation && loadingIn !== generation) yield* load(window, now)
          if (known(now) && keys.every((key) => (failing.get(key) ?? Number.NEGATIVE_INFINITY) <= now - window)) return []
          return yield* store.openWindows(keys, window, now)
        }),
      record: (keys, window, now) =>
        Effect.gen(function*() {
          windowMillis = window
          const counted = yield* store.record(keys, window, now)
          for (const key of new Set(keys)) {
            mark(key, now)
            yield* changes.publish(topic, `${now} ${key}`)
          }
          return counted
        }),
      forgive: (cleared, uncounted) =>
        Effect.gen(function*() {
          const clear = yield* store.forgive(cleared, uncounted)
          for (const key of new Set(clear)) {
            failing.delete(key)
            yield* changes.publish(topic, `${CLEAR} ${key}`)
          }
          return clear
        })
    })
  })
)
