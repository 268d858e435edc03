/**
 * The configured database (embedded PGlite in the data dir, or DATABASE_URL), migrated. Its
 * maintenance (the embedded one's planner statistics) runs as periodic tasks (BackgroundWork.ts).
 */
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
