/**
 * Issue 21. Two things every process on the database shares:
 *
 * - `rate_limit_usage`: requests per caller (`subject`), budget (`resource`) and hour (`window`,
 *   unix seconds ÷ 3600), which processes add to in batches (stores/RateLimitStoreSql.ts).
 * - `kiln_data_changes` notifications: a statement-level trigger on every table a JSON answer is
 *   read from notifies the channel, which PostgreSQL delivers at commit (never on rollback), once
 *   per transaction. Each process listens and so knows when the entity tags it remembers may be
 *   stale (coordination/DataChangesPg.ts). Jobs and the rate-limit counters feed no answer and
 *   change all the time, so they notify nothing. A table added later needs the same trigger.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE rate_limit_usage (
      subject text NOT NULL,
      resource text NOT NULL,
      window_start bigint NOT NULL,
      used bigint NOT NULL,
      PRIMARY KEY (subject, resource, window_start)
    )`
  yield* sql`
    CREATE FUNCTION kiln_data_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('kiln_data_changes', '');
      RETURN NULL;
    END
    $$`
  yield* sql`
    DO $$
    DECLARE
      name text;
    BEGIN
      FOR name IN
        SELECT tablename FROM pg_tables
        WHERE schemaname = current_schema()
          AND tablename NOT IN ('jobs', 'rate_limit_usage', 'effect_sql_migrations')
      LOOP
        EXECUTE format(
          'CREATE TRIGGER kiln_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
           FOR EACH STATEMENT EXECUTE FUNCTION kiln_data_changed()', name);
      END LOOP;
    END
    $$`
})
