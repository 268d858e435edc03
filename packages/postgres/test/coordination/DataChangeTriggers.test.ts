/**
 * Every table an answer is read from notifies `kiln_data_changes` at commit (migrations 0013 and
 * 0022): a table without the trigger leaves other processes' remembered entity tags and git access
 * decisions standing after a change to it. The tables that notify nothing are named here, so that a
 * table added without the trigger fails until it has it or is named.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

/** Bookkeeping that feeds no answer and changes all the time, or moves `repositories` itself. */
const silent = [
  "effect_sql_migrations",
  "jobs",
  "lfs_objects",
  "lfs_references",
  "lfs_tokens",
  "lfs_uploads",
  "pending_directory_steps",
  "rate_limit_usage",
  "signin_failures"
]

layer(Layer.provideMerge(migrations, TestDatabase.layer))("data change triggers", (it) => {
  it.effect("every table but the named bookkeeping notifies a change", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'kiln_data_changed')
        ORDER BY c.relname`
      assert.deepStrictEqual(rows.map((row) => row.name), silent)
    }))
})
