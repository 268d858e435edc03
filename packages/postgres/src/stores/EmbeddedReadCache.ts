/**
 * Reads kept on the embedded database until the next commit that changes a table. PGlite runs in
 * this process and no other process opens its data directory, and every commit that changes a
 * table notifies `kiln_data_changes` (migration 0013), which the protocol bridge hands over before
 * the committing statement's caller sees its answer (PgliteBridge.listen). So a read whose result
 * is kept while no such notification came is exactly what the database would answer now: a hot
 * lookup (the repository behind every `GET /repos/{owner}/{repo}` and every git request) skips
 * PGlite, which runs on the event loop's thread. On a server, several processes commit and their
 * notifications arrive late: there is no such cache there.
 *
 * Inside a transaction the read goes to the database: the transaction's own writes are not
 * committed yet, so they have notified nothing.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { channel } from "../coordination/DataChangesPg.ts"
import * as PgliteBridge from "../PgliteBridge.ts"

export interface EmbeddedReadCache<A> {
  /** `read`'s result for `key`, kept from an earlier read when nothing has committed since. */
  readonly through: <E, R>(key: string, read: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Without an embedded database, every read goes to the database. */
const uncached = <A>(): EmbeddedReadCache<A> => ({ through: (_key, read) => read })

/** A cache of at most `maxEntries` results, on the embedded database; reads pass through elsewhere. */
export const make = <A>(maxEntries: number): Effect.Effect<EmbeddedReadCache<A>, never, PgClient.PgClient | SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const db = PgliteBridge.embeddedOf((yield* PgClient.PgClient).config.stream)
    if (db === undefined) return uncached<A>()
    const sql = yield* SqlClient.SqlClient
    // Moves at every commit that changed a table; what was read before it may be stale.
    let commits = 0
    yield* Effect.acquireRelease(
      Effect.promise(() => PgliteBridge.listen(db, channel, () => commits++)),
      (stop) => Effect.promise(stop)
    )
    const entries = new Map<string, A>()
    let entriesAt = 0
    const current = () => {
      if (entriesAt !== commits) {
        entries.clear()
        entriesAt = commits
      }
      return entries
    }
    const keep = (key: string, value: A, readAt: number) => {
      // A commit while the read ran: the result may be from before or after it.
      if (readAt !== commits) return
      const kept = current()
      // The oldest kept goes first (a Map iterates in insertion order).
      if (kept.size >= maxEntries) kept.delete(kept.keys().next().value ?? key)
      kept.set(key, value)
    }
    return {
      through: <E, R>(key: string, read: Effect.Effect<A, E, R>) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) => {
          if (Option.isSome(transaction)) return read
          const known = current().get(key)
          if (known !== undefined) return Effect.succeed(known)
          const readAt = commits
          return Effect.tap(read, (value) => Effect.sync(() => keep(key, value, readAt)))
        })
    }
  })
