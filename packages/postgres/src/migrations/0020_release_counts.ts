/**
 * `repositories.num_releases`: the repository's published releases (drafts left out), kept on write
 * instead of counted in every repository answer. On the embedded database that count was the
 * largest part of what made GET repository cost twice a user answer (issue 30).
 *
 * Triggers keep it, for 0007's reason: deleting a repository cascades to its releases without a
 * store running (its own row is gone first, so the update finds nothing). Inserts and deletes are
 * counted per statement; an update per row only when it publishes, unpublishes or moves a release.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // No release may change between the backfill and the triggers (a second server on the same database).
  yield* sql`LOCK TABLE repositories, releases IN SHARE ROW EXCLUSIVE MODE`
  yield* sql`ALTER TABLE repositories ADD COLUMN num_releases integer NOT NULL DEFAULT 0`
  yield* sql`UPDATE repositories r SET num_releases = x.items
    FROM (SELECT repo_id, count(*) AS items FROM releases WHERE NOT is_draft GROUP BY repo_id) x WHERE r.id = x.repo_id`
  // 0009 indexed published releases for the count each answer made; nothing reads it now.
  yield* sql`DROP INDEX releases_published`

  yield* sql`CREATE FUNCTION releases_published_added_or_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE repositories r SET num_releases = r.num_releases + d.items
      FROM (SELECT repo_id, count(*) * CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END AS items
            FROM changed WHERE NOT is_draft GROUP BY repo_id) d
      WHERE r.id = d.repo_id;
      RETURN NULL;
    END $$`
  yield* sql`CREATE FUNCTION releases_published_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT OLD.is_draft THEN
        UPDATE repositories SET num_releases = num_releases - 1 WHERE id = OLD.repo_id;
      END IF;
      IF NOT NEW.is_draft THEN
        UPDATE repositories SET num_releases = num_releases + 1 WHERE id = NEW.repo_id;
      END IF;
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER releases_published_added AFTER INSERT ON releases
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION releases_published_added_or_removed()`
  yield* sql`CREATE TRIGGER releases_published_removed AFTER DELETE ON releases
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION releases_published_added_or_removed()`
  yield* sql`CREATE TRIGGER releases_published_moved AFTER UPDATE OF is_draft, repo_id ON releases
    FOR EACH ROW WHEN (OLD.is_draft <> NEW.is_draft OR OLD.repo_id <> NEW.repo_id) EXECUTE FUNCTION releases_published_moved()`
})
