/** The configured database (embedded PGlite in the data dir, or DATABASE_URL), migrated. */
import { Effect, Layer } from "effect"
import { Database } from "@kiln/postgres"
import * as Migrations from "@kiln/postgres/migrations"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  return Migrations.layer.pipe(
    Layer.provideMerge(Database.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  )
}))
