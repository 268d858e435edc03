/**
 * RepositoryRedirectStore on Postgres: `repository_redirects` keyed by owner and lower-cased old
 * name. Redirects to a deleted repository go with it (ON DELETE CASCADE, see migration 0009).
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { RepositoryRedirectStore } from "@kiln/domain/repo/RepositoryRedirectStore"
import { int } from "./Rows.ts"

export const layer = Layer.effect(
  RepositoryRedirectStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const release = (ownerId: number, name: string) =>
      sql`DELETE FROM repository_redirects WHERE owner_id = ${ownerId} AND lower_name = ${name.toLowerCase()}`

    return RepositoryRedirectStore.of({
      find: (ownerId, name) =>
        sql<{ repo_id: unknown }>`SELECT repo_id FROM repository_redirects
          WHERE owner_id = ${ownerId} AND lower_name = ${name.toLowerCase()}`.pipe(
          Effect.map((rows) => Option.map(Option.fromUndefinedOr(rows[0]), (row) => int(row.repo_id))),
          Effect.orDie
        ),
      record: (ownerId, repositoryId, from, to) =>
        sql.withTransaction(Effect.andThen(
          release(ownerId, to),
          sql`INSERT INTO repository_redirects (owner_id, lower_name, repo_id)
            VALUES (${ownerId}, ${from.toLowerCase()}, ${repositoryId})
            ON CONFLICT (owner_id, lower_name) DO UPDATE SET repo_id = EXCLUDED.repo_id`
        )).pipe(Effect.asVoid, Effect.orDie),
      release: (ownerId, name) => release(ownerId, name).pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
