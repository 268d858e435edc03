/**
 * Git LFS (issue 29): objects stored once for the whole instance, the repositories that reference
 * them, locks, uploads in flight, and the tokens `git-lfs-authenticate` hands out.
 *
 * - `lfs_objects`: one row per stored content (its file is `<data>/lfs/ab/cd/<rest>`);
 *   `unreferenced_since` is set by the collection when it first sees no reference, and cleared by
 *   any new reference, so an object goes only after a whole grace period without one.
 * - `lfs_references`: which repository references which object; they go with the repository.
 *   `size` repeats the object's so that the repository's total is kept as the other totals are
 *   (0007): `repositories.lfs_size` is the sum over its references, updated per statement in the
 *   transaction of the write, so an owner's `size:git:lfs` is exact at every moment.
 * - A fork starts with its base's references (Forgejo copies the meta rows; the files stay shared).
 * - `lfs_uploads`: uploads being received, so the collection leaves their objects alone.
 * - `lfs_tokens`: SHA-256 of the short-lived secrets of `git-lfs-authenticate`, each for an
 *   account or for a deploy key (`public_keys` row), whose grants are read again on every use.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE lfs_objects (
      oid text PRIMARY KEY CHECK (oid ~ '^[0-9a-f]{64}$'),
      size bigint NOT NULL CHECK (size >= 0),
      created_at bigint NOT NULL,
      unreferenced_since bigint
    )`
  yield* sql`CREATE INDEX lfs_objects_unreferenced ON lfs_objects (unreferenced_since) WHERE unreferenced_since IS NOT NULL`
  yield* sql`
    CREATE TABLE lfs_references (
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      oid text NOT NULL REFERENCES lfs_objects (oid),
      size bigint NOT NULL,
      created_at bigint NOT NULL,
      PRIMARY KEY (repo_id, oid)
    )`
  yield* sql`CREATE INDEX lfs_references_oid ON lfs_references (oid)`
  yield* sql`ALTER TABLE repositories ADD COLUMN lfs_size bigint NOT NULL DEFAULT 0`

  yield* sql`CREATE FUNCTION lfs_references_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE repositories r SET lfs_size = r.lfs_size + d.bytes
      FROM (SELECT repo_id AS id, sum(size) * CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END AS bytes
            FROM changed GROUP BY repo_id) d
      WHERE r.id = d.id AND d.bytes <> 0;
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER lfs_references_added AFTER INSERT ON lfs_references
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lfs_references_counted()`
  yield* sql`CREATE TRIGGER lfs_references_removed AFTER DELETE ON lfs_references
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lfs_references_counted()`

  yield* sql`CREATE FUNCTION lfs_references_forked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO lfs_references (repo_id, oid, size, created_at)
        SELECT NEW.id, oid, size, NEW.created_at FROM lfs_references WHERE repo_id = NEW.fork_id
        ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER lfs_references_forked AFTER INSERT ON repositories
    FOR EACH ROW WHEN (NEW.fork_id <> 0) EXECUTE FUNCTION lfs_references_forked()`

  yield* sql`
    CREATE TABLE lfs_locks (
      id bigserial PRIMARY KEY,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      path text NOT NULL,
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at bigint NOT NULL,
      UNIQUE (repo_id, path)
    )`

  yield* sql`
    CREATE TABLE lfs_uploads (
      id text PRIMARY KEY,
      oid text NOT NULL,
      started_at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX lfs_uploads_oid ON lfs_uploads (oid)`

  yield* sql`
    CREATE TABLE lfs_tokens (
      hash text PRIMARY KEY,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      user_id bigint REFERENCES users (id) ON DELETE CASCADE,
      deploy_key_id bigint REFERENCES public_keys (id) ON DELETE CASCADE,
      operation text NOT NULL CHECK (operation IN ('upload', 'download')),
      expires_at bigint NOT NULL,
      CHECK ((user_id IS NULL) <> (deploy_key_id IS NULL))
    )`
})
