/**
 * Deliveries on a real database: the history newest first with the next attempt read from the
 * delivery's job, attempts recorded as the latest outcome, redelivery marks, and pruning of the
 * history (KILN_WEBHOOK_HISTORY_DAYS) that keeps deliveries still to be sent.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { Jobs } from "@kiln/domain/coordination/Jobs"
import { WebhookStore } from "@kiln/domain/org/WebhookStore"
import { pageRequest } from "@kiln/domain/Paging"
import { WebhookDeliveryStore } from "@kiln/domain/webhook/WebhookDeliveryStore"
import { DELIVERY_JOB } from "@kiln/domain/webhook/WebhookEvents"
import * as JobsSql from "../../src/coordination/JobsSql.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as WebhookDeliveryStoreSql from "../../src/stores/WebhookDeliveryStoreSql.ts"
import * as WebhookStoreSql from "../../src/stores/WebhookStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const Stores = Layer.mergeAll(WebhookStoreSql.layer, WebhookDeliveryStoreSql.layer, JobsSql.layer({ notify: false })).pipe(
  Layer.provideMerge(Database)
)

const newHook = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [owner] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
    VALUES ('hook-owner', 'hook-owner', 'o@example.com', 'organization', 'public', 0, 0) RETURNING id`.pipe(Effect.orDie)
  const hooks = yield* WebhookStore
  return yield* hooks.insert({
    ownerId: Number(owner?.id), repositoryId: undefined, type: "forgejo", url: "http://h.example/", contentType: "json", secret: "s",
    events: ["push"], branchFilter: "", authorizationHeader: "", active: true, isSystemWebhook: false, slack: undefined,
    createdAt: 0, updatedAt: 0
  })
})

layer(Stores, { timeout: "120 seconds" })("webhook deliveries on PostgreSQL", (it) => {
  it.effect("lists newest first with the next attempt from the job, records attempts, prunes only finished history", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* WebhookDeliveryStore
      const jobs = yield* Jobs
      const hook = yield* newHook
      const insert = (guid: string) =>
        Effect.gen(function*() {
          const id = yield* store.insert({ hookId: hook.id, guid, event: "push", action: "", payload: "{}", follows: undefined })
          yield* jobs.enqueue(DELIVERY_JOB, String(id), null)
          return id
        })
      const old = yield* insert("old-done")
      const oldPending = yield* insert("old-pending")
      const recent = yield* insert("recent")

      const listed = yield* store.listForHook(hook.id, pageRequest(1, 10))
      assert.deepStrictEqual(listed.items.map((d) => d.guid), ["recent", "old-pending", "old-done"])
      assert.strictEqual(listed.total, 3)
      assert.isDefined(listed.items[0]?.nextAttemptAt)

      yield* store.recordAttempt(old, {
        startedAt: Date.now(), duration: 12, request: { method: "POST", url: "http://h.example/", headers: { A: "b" }, body: "{}" },
        response: { status: 200, headers: { C: "d" }, body: "ok" }, error: undefined
      }, "OK")
      // Delivered while its job is not marked done yet (the worker does that after the send): no next attempt.
      assert.isUndefined(Option.getOrThrow(yield* store.find(old)).nextAttemptAt)
      yield* sql`UPDATE jobs SET done_at = now() - interval '30 days' WHERE kind = ${DELIVERY_JOB} AND key = ${String(old)}`
      const done = Option.getOrThrow(yield* store.find(old))
      assert.deepStrictEqual([done.status, done.statusCode, done.attempts, done.nextAttemptAt], ["OK", 200, 1, undefined])
      const attempt = Option.getOrThrow(yield* store.latestAttempt(old))
      assert.deepStrictEqual(attempt.response, { status: 200, headers: { C: "d" }, body: "ok" })

      yield* store.markRedelivery(old)
      assert.deepStrictEqual([(Option.getOrThrow(yield* store.find(old))).status, (Option.getOrThrow(yield* store.find(old))).redelivery], [
        "pending",
        true
      ])

      yield* sql`UPDATE webhook_deliveries SET created_at = now() - interval '10 days' WHERE id IN (${old}, ${oldPending})`
      const removed = yield* store.pruneBefore(Date.now() - 7 * 24 * 60 * 60 * 1000)
      assert.strictEqual(removed, 1)
      const left = yield* store.listForHook(hook.id, pageRequest(1, 10))
      // The old one still pending stays until it is sent; the finished job's row went with it.
      assert.deepStrictEqual(left.items.map((d) => d.id), [recent, oldPending])
      const [jobRows] = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM jobs WHERE kind = ${DELIVERY_JOB} AND key = ${String(old)}`
      assert.strictEqual(Number(jobRows?.n), 0)
      assert.isTrue(Option.isNone(yield* store.findForHook(hook.id + 1000, recent)))
    }))
})
