/**
 * SSH keys checked for what the rules of 0017 keep out: a deploy key's row without any grant (it
 * opens nothing, yet keeps its content from being an account's key), and keys sharing a
 * fingerprint (stored before 0017 checked it: a sign-in with that key speaks for the oldest).
 * What `kiln doctor` reports and repairs.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Ids of deploy keys' rows without a grant. */
export const deployKeysWithoutGrant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string }>`SELECT k.id::text AS id FROM public_keys k
    WHERE k.kind = 'deploy' AND NOT EXISTS (SELECT 1 FROM deploy_keys d WHERE d.key_id = k.id) ORDER BY k.id`
  return rows.map((row) => row.id)
})

export const removeDeployKeysWithoutGrant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM public_keys k WHERE k.kind = 'deploy' AND NOT EXISTS (SELECT 1 FROM deploy_keys d WHERE d.key_id = k.id)`
})

/** `fingerprint: ids` of keys sharing a fingerprint. */
export const sharedFingerprints = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ fingerprint: string; ids: string }>`SELECT fingerprint, string_agg(id::text, ', ' ORDER BY id) AS ids
    FROM public_keys GROUP BY fingerprint HAVING count(*) > 1 ORDER BY fingerprint`
  return rows.map((row) => `${row.fingerprint}: keys ${row.ids}`)
})
