/**
 * The WriteLocks port on PostgreSQL.
 *
 * Within a process, one semaphore per key (created on demand, dropped when unused) queues the
 * sections. Across processes, on a server, the section then holds a session advisory lock
 * (`pg_advisory_lock` space `(namespace, hashtext(key))`) for its whole length, git steps included.
 * Every lock of the process lives on one dedicated connection: sections ask with the non-blocking
 * `pg_try_advisory_lock`, so a waiting section neither pins a connection of its own nor can exhaust
 * the pool its body queries through. A release notifies its key on the changes channel in the same
 * statement (ChangesSql), and a section waiting for that key in any process asks again when it hears
 * it; it also asks again after a backoff (up to 100 ms), for a release whose notice it missed (a
 * listener reconnecting) or that never came (a holder that died). A process that dies loses its
 * connection and with it its locks, which is what lets others go on.
 *
 * If the lock connection drops mid-section, its locks are gone early and another process may enter.
 * The sections holding them are then stopped: a lock is taken together with the session's backend
 * id, a watch (while any section holds a lock) asks the connection for its backend id every
 * `sessionCheck` milliseconds, and when that fails or names another session, every section of the
 * lost session is interrupted (it dies with WriteLockLost; its own cleanup runs, a transaction
 * rolls back) instead of going on unlocked. The release also notices (unlock answers false).
 *
 * On the embedded database there is one process per data directory (its lock file) and one
 * session, whose advisory locks would never exclude each other: the in-process semaphores are the
 * whole lock there.
 */
import { PgClient } from "@effect/sql-pg"
import { Data, Deferred, Duration, Effect, Layer, Option, Schedule, Semaphore } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { Changes } from "@kiln/domain/coordination/Changes"
import { WriteLocks } from "@kiln/domain/coordination/WriteLocks"
import { channel, payloadOf } from "./ChangesSql.ts"

// The first key of the two-int advisory lock space; other advisory locks of Kiln use one bigint.
const namespace = 0x6b6c6b // "klk"

/** The changes topic a release is announced in, by key. */
const releasedTopic = "write-lock-released"

/** A section's advisory lock was lost with its connection: the section is stopped (a defect). */
export class WriteLockLost extends Data.TaggedError("WriteLockLost")<{ readonly key: string; readonly session: number }> {}

/** The lock connection's backend, and a signal completed when it is found lost. */
interface Session {
  readonly backend: number
  readonly lost: Deferred.Deferred<void>
}

interface Holder {
  readonly semaphore: Semaphore.Semaphore
  users: number
}

/** Semaphores by key, each kept while a fiber holds or waits for it. */
const keyedSemaphores = () => {
  const holders = new Map<string, Holder>()
  const enter = (key: string) =>
    Effect.sync(() => {
      const holder = holders.get(key) ?? { semaphore: Semaphore.makeUnsafe(1), users: 0 }
      holder.users++
      holders.set(key, holder)
      return holder
    })
  const leave = (key: string, holder: Holder) =>
    Effect.sync(() => {
      holder.users--
      if (holder.users === 0) holders.delete(key)
    })
  return {
    withPermit: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(enter(key), (holder) => holder.semaphore.withPermit(effect), (holder) => leave(key, holder)),
    ifAvailable: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        enter(key),
        (holder) => Semaphore.withPermitsIfAvailable(holder.semaphore, 1)(effect),
        (holder) => leave(key, holder)
      )
  }
}

export interface Options {
  /** True on a PostgreSQL server: sections also hold advisory locks, across processes. */
  readonly acrossProcesses: boolean
  /** Milliseconds before a waiting section first asks again unprompted; doubled up to `longestPoll`. */
  readonly firstPoll?: number
  readonly longestPoll?: number
  /** Milliseconds between checks that the lock connection is still the session holding the locks (1000). */
  readonly sessionCheck?: number
}

export const layer = (options: Options): Layer.Layer<WriteLocks, never, PgClient.PgClient | Changes> =>
  Layer.effect(WriteLocks, Effect.gen(function*() {
    const local = keyedSemaphores()
    if (!options.acrossProcesses) {
      return WriteLocks.of({
        withLock: local.withPermit,
        whenFree: (key, effect) => Effect.map(local.ifAvailable(key, effect), Option.getOrUndefined)
      })
    }
    const pg = yield* PgClient.PgClient
    // One connection, never idle-closed: closing it would drop every lock held on it.
    const locks = yield* PgClient.make({
      ...pg.config,
      applicationName: "kiln-write-locks",
      maxConnections: 1,
      minConnections: 1,
      idleTimeout: Duration.infinity,
      multiplex: true
    }).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

    const firstPoll = options.firstPoll ?? 5
    const longestPoll = options.longestPoll ?? 100

    // The sections of this process waiting for a key, each woken once when its release is heard.
    const waiting = new Map<string, Set<Deferred.Deferred<void>>>()
    const changes = yield* Changes
    yield* changes.subscribe(releasedTopic, (signal) =>
      signal._tag === "Changed"
        ? Effect.forEach(waiting.get(signal.key) ?? [], (woken) => Deferred.succeed(woken, undefined), { discard: true })
        : Effect.void)
    const listenFor = (key: string) =>
      Effect.sync(() => {
        const woken = Deferred.makeUnsafe<void>()
        const set = waiting.get(key) ?? new Set()
        set.add(woken)
        waiting.set(key, set)
        return woken
      })
    const stopListening = (key: string, woken: Deferred.Deferred<void>) =>
      Effect.sync(() => {
        const set = waiting.get(key)
        set?.delete(woken)
        if (set?.size === 0) waiting.delete(key)
      })

    // The session the held locks live on; replaced when a lock is taken on another one.
    let session: Session | undefined
    let held = 0
    const sessionOf = (backend: number) =>
      Effect.gen(function*() {
        if (session !== undefined && session.backend === backend) return session
        // Locks taken on an earlier backend are gone with it.
        if (session !== undefined) yield* Deferred.succeed(session.lost, undefined)
        session = { backend, lost: Deferred.makeUnsafe<void>() }
        return session
      })
    const sessionLost = (lost: Session) =>
      Effect.gen(function*() {
        if (session === lost) session = undefined
        yield* Deferred.succeed(lost.lost, undefined)
        yield* Effect.logError(`the write-lock connection (backend ${lost.backend}) was lost; its sections are stopped`)
      })
    const sessionCheck = options.sessionCheck ?? 1000
    // While a lock is held, the connection must still be the session that took it.
    yield* Effect.gen(function*() {
      const current = session
      if (held === 0 || current === undefined) return
      const backend = yield* locks<{ backend: number }>`SELECT pg_backend_pid() AS backend`.pipe(
        Effect.map(([row]) => row?.backend),
        Effect.orElseSucceed(() => undefined)
      )
      if (backend !== current.backend && session === current) yield* sessionLost(current)
    }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(sessionCheck))), Effect.forkScoped)

    const tryLock = (key: string) =>
      locks<{ locked: boolean; backend: number }>`
        SELECT pg_try_advisory_lock(${namespace}, hashtext(${key})) AS locked, pg_backend_pid() AS backend`.pipe(
        Effect.flatMap(([row]): Effect.Effect<Session | undefined> => row?.locked === true ? sessionOf(row.backend) : Effect.succeed(undefined))
      )
    const unlock = (key: string) =>
      locks<{ unlocked: boolean }>`
        SELECT pg_advisory_unlock(${namespace}, hashtext(${key})) AS unlocked, pg_notify(${channel}, ${payloadOf(releasedTopic, key)})`.pipe(
        Effect.flatMap(([row]) =>
          row?.unlocked === true ? Effect.void : Effect.logError(`write lock ${key} was lost before its section ended`)
        ),
        Effect.catchCause((cause) => Effect.logError(`write lock ${key} not released`, cause))
      )

    /**
     * Asks until the lock is ours: again when its release is heard, or after the backoff. Listens
     * before asking, so a release between a refusal and the wait is not missed. Database failures
     * are defects (nothing can be written then). Runs as an uninterruptible acquisition,
     * interruptible only while waiting, when nothing is held.
     */
    const acquire = (key: string) =>
      Effect.gen(function*() {
        let wait = firstPoll
        while (true) {
          const locked = yield* Effect.acquireUseRelease(
            listenFor(key),
            (woken) =>
              Effect.flatMap(tryLock(key), (locked) =>
                locked !== undefined
                  ? Effect.succeed(locked)
                  : Effect.as(Effect.interruptible(Effect.timeoutOption(Deferred.await(woken), Duration.millis(wait))), undefined)),
            (woken) => stopListening(key, woken)
          )
          if (locked !== undefined) {
            held++
            return locked
          }
          wait = Math.min(longestPoll, wait * 2)
        }
      }).pipe(Effect.orDie)

    /** `effect`, stopped with WriteLockLost if its lock's session is lost before it ends. */
    const fenced = <A, E, R>(key: string, lock: Session, effect: Effect.Effect<A, E, R>) =>
      Effect.raceFirst(effect, Effect.andThen(Deferred.await(lock.lost), Effect.die(new WriteLockLost({ key, session: lock.backend }))))

    const release = (key: string) => Effect.andThen(Effect.sync(() => held--), unlock(key))

    const holding = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(acquire(key), (lock) => fenced(key, lock, effect), () => release(key))

    return WriteLocks.of({
      withLock: (key, effect) => local.withPermit(key, holding(key, effect)),
      whenFree: (key, effect) =>
        local.ifAvailable(
          key,
          Effect.acquireUseRelease(
            Effect.orDie(Effect.tap(tryLock(key), (locked) => Effect.sync(() => locked !== undefined && held++))),
            (locked) => locked !== undefined ? fenced(key, locked, effect) : Effect.succeed(undefined),
            (locked) => locked !== undefined ? release(key) : Effect.void
          )
        ).pipe(Effect.map((result) => Option.getOrUndefined(result)))
    })
  }))
