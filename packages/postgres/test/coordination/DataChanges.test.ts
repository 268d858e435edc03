/**
 * The data version and the access version on a real database (migrations 0013, 0022 and 0023):
 * every commit moves the data version; the access version stays where a commit changed a
 * repository's contents alone (its branch table, its pending mark, its size, emptiness, default
 * branch or update time), which is what a push writes, and moves for everything else.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import * as DataChangesPg from "../../src/coordination/DataChangesPg.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const Tested = DataChangesPg.layer({ retryInterval: 50 }).pipe(Layer.provideMerge(Database))

/** The versions once the data version has moved past `before` (a server's notifications come late). */
const after = (before: number | undefined) =>
  Effect.gen(function*() {
    const changes = yield* DataChanges
    for (let waited = 0; waited < 5_000; waited += 10) {
      const version = changes.version()
      if (version !== undefined && version !== before) return { version, access: changes.accessVersion() }
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.die(new Error("the data version did not move"))
  })

/** Runs `write` and answers whether the access version moved with the data version. */
const movesAccess = (write: Effect.Effect<unknown, unknown, SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    // A server's listener starts in the background.
    const { version, access } = yield* after(undefined)
    yield* Effect.orDie(write)
    const moved = yield* after(version)
    return moved.access !== access
  })

layer(Tested, { timeout: "120 seconds" })("DataChanges on PostgreSQL", (it) => {
  it.effect("a push's writes move the data version alone; access changes move both", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Each write below notifies once, and each step waits for it: none is heard in the next step.
      let ownerId = 0
      assert.isTrue(yield* movesAccess(Effect.gen(function*() {
        const [row] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
          VALUES ('owner', 'owner', 'o@example.com', 'individual', 'public', 0, 0) RETURNING id`
        ownerId = Number(row?.id)
      })), "a new account")

      let repoId = 0
      assert.isTrue(yield* movesAccess(Effect.gen(function*() {
        const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories
          (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
          VALUES (${ownerId}, 'r', 'r', 'main', 'main', '[]'::jsonb, 0, 0) RETURNING id`
        repoId = Number(row?.id)
      })), "a new repository")

      // What a push writes.
      assert.isFalse(yield* movesAccess(sql`INSERT INTO branch_sync_pending (repo_id) VALUES (${repoId})`), "pending mark")
      assert.isFalse(
        yield* movesAccess(sql`UPDATE repositories SET size = 4096, is_empty = false, updated_at = 7, default_branch = 'dev'
          WHERE id = ${repoId}`),
        "size, emptiness, default branch, update time"
      )
      assert.isFalse(yield* movesAccess(sql`INSERT INTO branches (repo_id, name, commit_id, commit_message, author_name,
          author_email, author_time, author_offset, committer_name, committer_email, commit_time, committer_offset, verification)
        VALUES (${repoId}, 'dev', ${"a".repeat(40)}, 'm', 'a', 'a@a', 0, 0, 'c', 'c@c', 0, 0, '{}'::jsonb)`), "branch")
      assert.isFalse(yield* movesAccess(sql`DELETE FROM branch_sync_pending WHERE repo_id = ${repoId}`), "pending mark cleared")

      // What decides who may read or push.
      assert.isTrue(yield* movesAccess(sql`UPDATE repositories SET is_private = true WHERE id = ${repoId}`), "visibility")
      assert.isTrue(
        yield* movesAccess(sql`UPDATE repositories SET size = 8192, is_archived = true WHERE id = ${repoId}`),
        "archived with a new size"
      )
      assert.isTrue(yield* movesAccess(sql`UPDATE repositories SET name = 'renamed', lower_name = 'renamed' WHERE id = ${repoId}`), "rename")
      assert.isTrue(yield* movesAccess(sql`UPDATE users SET active = false WHERE id = ${ownerId}`), "account")
      assert.isTrue(yield* movesAccess(sql`DELETE FROM repositories WHERE id = ${repoId}`), "removal")
    })))

  it.effect("a change this process records moves both", () =>
    Effect.gen(function*() {
      const changes = yield* DataChanges
      const { version, access } = yield* TestClock.withLive(after(undefined))
      changes.changed()
      assert.notStrictEqual(changes.version(), version)
      assert.notStrictEqual(changes.accessVersion(), access)
    }))
})
