/**
 * Deploy keys (Forgejo's `deploy_key` beside `public_key` of type deploy): an SSH key that opens
 * the repositories it was added to, read-only or read-write. One key may be added to several
 * repositories, so its content lives once in `public_keys` (`kind = 'deploy'`, no owner) and each
 * repository's grant in `deploy_keys`; content used by an account is never a deploy key and back
 * (the content index covers both kinds). The key's row goes with its last grant (trigger), also
 * when a repository is deleted.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE public_keys ADD COLUMN kind text NOT NULL DEFAULT 'user'`
  yield* sql`ALTER TABLE public_keys ALTER COLUMN owner_id DROP NOT NULL`
  yield* sql`ALTER TABLE public_keys ADD CONSTRAINT public_keys_kind
    CHECK ((kind = 'user' AND owner_id IS NOT NULL) OR (kind = 'deploy' AND owner_id IS NULL))`
  yield* sql`
    CREATE TABLE deploy_keys (
      id bigserial PRIMARY KEY,
      key_id bigint NOT NULL REFERENCES public_keys (id) ON DELETE CASCADE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      title text NOT NULL,
      read_only boolean NOT NULL,
      created_at bigint NOT NULL,
      CONSTRAINT deploy_keys_key_repository UNIQUE (key_id, repository_id),
      CONSTRAINT deploy_keys_repository_title UNIQUE (repository_id, title)
    )`
  yield* sql`CREATE INDEX deploy_keys_key ON deploy_keys (key_id)`
  yield* sql`
    CREATE FUNCTION deploy_keys_release_key() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM public_keys WHERE id = OLD.key_id AND kind = 'deploy'
        AND NOT EXISTS (SELECT 1 FROM deploy_keys WHERE key_id = OLD.key_id);
      RETURN NULL;
    END $$`
  yield* sql`
    CREATE TRIGGER deploy_keys_release_key AFTER DELETE ON deploy_keys
      FOR EACH ROW EXECUTE FUNCTION deploy_keys_release_key()`
})
