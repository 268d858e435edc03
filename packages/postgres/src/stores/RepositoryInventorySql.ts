/** RepositoryInventory on Postgres: two narrow scans, no row decoding beyond two text columns. */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { RepositoryInventory } from "@kiln/domain/repo/RepositoryInventory"

export const layer = Layer.effect(
  RepositoryInventory,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return RepositoryInventory.of({
      locations: sql<{ owner: string; name: string }>`SELECT u.lower_name AS owner, r.lower_name AS name
        FROM repositories r JOIN users u ON u.id = r.owner_id`.pipe(Effect.orDie),
      existingOwners: (lowerNames) =>
        lowerNames.length === 0
          ? Effect.succeed(new Set<string>())
          : sql<{ lower_name: string }>`SELECT lower_name FROM users WHERE ${sql.in("lower_name", lowerNames)}`.pipe(
            Effect.map((rows) => new Set(rows.map((row) => row.lower_name))),
            Effect.orDie
          )
    })
  })
)
