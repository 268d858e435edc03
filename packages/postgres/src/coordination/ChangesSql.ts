/**
 * The Changes port on PostgreSQL. On a server, `publish` is `pg_notify` on the caller's connection
 * (inside its transaction when there is one: PostgreSQL delivers it at commit, never on rollback)
 * and each process keeps one listener, which hands every notification to the subscribers of its
 * topic; when the listening connection fails, subscribers hear `Lost` and the listener retries
 * until it listens again (`Listening`). On the embedded database a listener would pin its only
 * connection and there is only this process to tell: `publish` calls the subscribers directly.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { type ChangeSignal, Changes } from "@kiln/domain/coordination/Changes"

/** The channel every process listens on; the payload is `<topic>\n<key>` (payloadOf). */
export const channel = "kiln_changes"

/** What a change of `key` in `topic` is sent as on `channel`. */
export const payloadOf = (topic: string, key: string): string => `${topic}\n${key}`

export interface Options {
  /** True on a PostgreSQL server: NOTIFY and a listener; false: in-process. */
  readonly acrossProcesses: boolean
  /** Pause before listening again after the listener failed (milliseconds). */
  readonly retryAfter?: number
}

type Subscriber = (signal: ChangeSignal) => Effect.Effect<void>

export const layer = (options: Options): Layer.Layer<Changes, never, SqlClient.SqlClient | PgClient.PgClient> =>
  Layer.effect(Changes, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscribers = new Map<string, Set<Subscriber>>()
    let listening = !options.acrossProcesses

    const tell = (topic: string, signal: ChangeSignal) =>
      Effect.forEach(subscribers.get(topic) ?? [], (subscriber) => subscriber(signal), { discard: true })
    const tellAll = (signal: ChangeSignal) =>
      Effect.forEach([...subscribers.keys()], (topic) => tell(topic, signal), { discard: true })

    const subscribe = (topic: string, onSignal: Subscriber) =>
      Effect.gen(function*() {
        const set = subscribers.get(topic) ?? new Set()
        set.add(onSignal)
        subscribers.set(topic, set)
        yield* Effect.addFinalizer(() => Effect.sync(() => set.delete(onSignal)))
        if (listening) yield* onSignal({ _tag: "Listening" })
      })

    if (!options.acrossProcesses) {
      return Changes.of({ publish: (topic, key) => tell(topic, { _tag: "Changed", key }), subscribe })
    }

    const pg = yield* PgClient.PgClient
    const listenOnce = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* pg.listen(channel)
      listening = true
      yield* tellAll({ _tag: "Listening" })
      return yield* Effect.forever(Effect.gen(function*() {
        const notification = yield* Queue.take(notifications)
        const newline = notification.payload.indexOf("\n")
        if (newline < 0) return
        yield* tell(notification.payload.slice(0, newline), { _tag: "Changed", key: notification.payload.slice(newline + 1) })
      }))
    }))
    const lost = (cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const was = listening
        listening = false
        if (was) yield* tellAll({ _tag: "Lost" })
        yield* Effect.logWarning("change listener lost", Cause.pretty(cause))
      })
    yield* listenOnce.pipe(
      Effect.catchCause(lost),
      Effect.repeat(Schedule.spaced(Duration.millis(options.retryAfter ?? 1_000))),
      Effect.forkScoped
    )

    return Changes.of({
      publish: (topic, key) => sql`SELECT pg_notify(${channel}, ${payloadOf(topic, key)})`.pipe(Effect.asVoid, Effect.orDie),
      subscribe
    })
  }))
