/**
 * Jobs (0010) that cannot loop or crowd others out (coordination/JobWorker.ts): `abandoned_runs`
 * counts runs whose lease ran out with no outcome written (the process running it stopped), and a
 * job reaching the limit is parked rather than claimed again; `fairness_key` names whose job it is
 * (a webhook delivery's owner), so that one key's jobs take a bounded share of a process's slots.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE jobs ADD COLUMN abandoned_runs integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE jobs ADD COLUMN fairness_key text`
})
