/**
 * The active hooks of a repository and its owner, kept for the access version they were read at
 * (WebhookStoreSql.ts), on a real database with the real data change listener: kept while nothing
 * commits, read again once a commit moved the version (a hook written outside the store too),
 * forgotten at once when the store writes one, never kept from inside a transaction.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import { WebhookStore } from "@kiln/domain/org/WebhookStore"
import * as DataChangesPg from "../../src/coordination/DataChangesPg.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as WebhookStoreSql from "../../src/stores/WebhookStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const Stores = WebhookStoreSql.layer.pipe(Layer.provideMerge(DataChangesPg.layer()), Layer.provideMerge(Database))

/** A real pause (tests run on the TestClock otherwise). */
const pause = (millis: number) => TestClock.withLive(Effect.sleep(`${millis} millis`))

/** Until the version has moved past `before` (the listener hears a commit a moment after it). */
const versionPast = (before: number | undefined) =>
  Effect.flatMap(DataChanges, (changes) =>
    Effect.gen(function*() {
      for (let attempt = 0; attempt < 200; attempt++) {
        const now = changes.accessVersion()
        if (now !== undefined && now !== before) return now
        yield* pause(10)
      }
      return yield* Effect.die(new Error("the access version never moved"))
    }))

/** Until the listener is up (the version is known). */
const listening = versionPast(undefined)

layer(Stores, { timeout: "120 seconds" })("active webhooks", (it) => {
  it.effect("are kept while the access version stays, and read again once any commit moves it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const hooks = yield* WebhookStore
      const changes = yield* DataChanges
      yield* listening
      const [owner] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
        VALUES ('keeper', 'keeper', 'k@example.com', 'organization', 'public', 0, 0) RETURNING id`.pipe(Effect.orDie)
      const ownerId = Number(owner?.id)
      const hook = yield* hooks.insert({
        ownerId, repositoryId: undefined, type: "forgejo", url: "http://h.example/", contentType: "json", secret: "s",
        events: ["push"], branchFilter: "", authorizationHeader: "", active: true, isSystemWebhook: false, slack: undefined,
        createdAt: 0, updatedAt: 0
      })
      // Written through the store: seen by the very next read, whether or not the notice came yet.
      assert.deepStrictEqual((yield* hooks.activeFor(1, ownerId)).map((found) => found.id), [hook.id])
      // Once every notice is in, two reads at one version are one read: the same answer, kept.
      yield* pause(100)
      const atVersion = changes.accessVersion()
      const kept = yield* hooks.activeFor(1, ownerId)
      assert.strictEqual(yield* hooks.activeFor(1, ownerId), kept)
      assert.strictEqual(changes.accessVersion(), atVersion)

      // Deactivated by a statement the store does not see: read again once its commit's notice arrived.
      yield* sql`UPDATE webhooks SET active = false WHERE id = ${hook.id}`.pipe(Effect.orDie)
      yield* versionPast(atVersion)
      assert.deepStrictEqual(yield* hooks.activeFor(1, ownerId), [])

      // Activated and removed through the store: seen by the very next read.
      yield* hooks.update(hook.id, { ...hook, active: true })
      assert.deepStrictEqual((yield* hooks.activeFor(1, ownerId)).map((found) => found.id), [hook.id])
      yield* hooks.removeIn({ kind: "owner", ownerId }, hook.id)
      assert.deepStrictEqual(yield* hooks.activeFor(1, ownerId), [])
    }))

  it.effect("a read inside a transaction is not kept: what it saw may never commit", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const hooks = yield* WebhookStore
      yield* listening
      const [owner] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
        VALUES ('rolled', 'rolled', 'r@example.com', 'organization', 'public', 0, 0) RETURNING id`.pipe(Effect.orDie)
      const ownerId = Number(owner?.id)
      yield* pause(50)
      const rolledBack = sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO webhooks (owner_id, type, url, content_type, events, branch_filter, authorization_header,
            active, is_system_webhook, secret, slack_username, slack_icon_url, slack_color, created_at, updated_at)
          VALUES (${ownerId}, 'forgejo', 'http://h.example/', 'json', 'push', '', '', true, false, 's', '', '', '', 0, 0)`
        assert.strictEqual((yield* hooks.activeFor(2, ownerId)).length, 1)
        return yield* Effect.fail("roll back")
      })).pipe(Effect.flip)
      assert.strictEqual(yield* rolledBack, "roll back")
      assert.deepStrictEqual(yield* hooks.activeFor(2, ownerId), [])
    }))
})
