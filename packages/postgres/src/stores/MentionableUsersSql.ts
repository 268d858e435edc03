/** Which `@names` of a markdown text are existing public users: one query per render. */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { MentionableUsers } from "@kiln/domain/markdown/MentionableUsers"

export const layer = Layer.effect(
  MentionableUsers,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return MentionableUsers.of({
      existing: (names) =>
        sql<{ lower_name: string }>`SELECT lower_name FROM users
          WHERE ${sql.in("lower_name", [...new Set(names.map((name) => name.toLowerCase()))])}
            AND kind = 'individual' AND visibility = 'public'`.pipe(
          Effect.map((rows) => {
            const found = new Set(rows.map((row) => row.lower_name))
            return new Set(names.filter((name) => found.has(name.toLowerCase())))
          }),
          Effect.orDie
        )
    })
  })
)
