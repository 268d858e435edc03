/**
 * The configured database (embedded PGlite in the data dir, or DATABASE_URL), migrated. The
 * embedded one also keeps its own planner statistics, which a server's autovacuum keeps otherwise.
 */
import { Effect, Layer, Option } from "effect"
import { Database, EmbeddedStatistics } from "@kiln/postgres"
import * as Migrations from "@kiln/postgres/migrations"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  const migrated = Migrations.layer.pipe(
    Layer.provideMerge(Database.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  )
  return Option.isNone(config.databaseUrl)
    ? EmbeddedStatistics.layer().pipe(Layer.provideMerge(migrated))
    : migrated
}))
