/**
 * Webhooks that deliver. A hook belongs to an owner (organization hooks) or to one repository
 * (repository hooks), never both. A delivery is one event for one hook, written in the transaction
 * of the change that caused it, with the job that sends it (kind `webhook_delivery`, keyed by the
 * delivery's id; its pending run time is the delivery's next attempt). Every attempt is kept with
 * what was sent and what came back. `follows` is the delivery of the same hook for the event just
 * before in the same change (a new branch's `create` before its `push`): it is attempted first.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhooks ALTER COLUMN owner_id DROP NOT NULL`
  yield* sql`ALTER TABLE webhooks ADD COLUMN repo_id bigint REFERENCES repositories (id) ON DELETE CASCADE`
  yield* sql`ALTER TABLE webhooks ADD CONSTRAINT webhooks_one_scope CHECK ((owner_id IS NULL) <> (repo_id IS NULL))`
  yield* sql`CREATE INDEX webhooks_repo ON webhooks (repo_id, id) WHERE repo_id IS NOT NULL`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      id bigserial PRIMARY KEY,
      hook_id bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      guid text NOT NULL UNIQUE,
      event text NOT NULL,
      action text NOT NULL DEFAULT '',
      payload text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      status text NOT NULL DEFAULT 'pending',
      status_code integer,
      delivered_at timestamptz,
      duration_ms double precision,
      attempts integer NOT NULL DEFAULT 0,
      redelivery boolean NOT NULL DEFAULT false,
      follows bigint
    )`
  yield* sql`CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (hook_id, id DESC)`
  yield* sql`CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)`
  yield* sql`
    CREATE TABLE webhook_delivery_attempts (
      id bigserial PRIMARY KEY,
      delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      started_at timestamptz NOT NULL,
      duration_ms double precision NOT NULL,
      request_method text NOT NULL,
      request_url text NOT NULL,
      request_headers jsonb NOT NULL,
      request_body text NOT NULL,
      response_status integer,
      response_headers jsonb,
      response_body text,
      error text
    )`
  yield* sql`CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, id DESC)`
})
