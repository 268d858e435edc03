/**
 * Usage totals kept up to date on write, so an owner's usage is read from one row per repository
 * plus one row, instead of summing every attachment and package file on each request:
 *
 * - `repositories.attachments_size` and `attachments_count`: bytes and number of the repository's
 *   release attachments; `attachments.owner_id`: the repository's owner, for the owner's list;
 * - `package_versions.size`: bytes of the version's files; `packages.size`: bytes of its versions;
 * - `repositories.packages_size`: bytes of the packages linked to the repository (they count for
 *   its owner); `unlinked_package_usage`: bytes of an owner's packages linked to no repository.
 *
 * Triggers keep them, in the transaction of the write, with `x = x + delta` under the row lock of
 * the total, so concurrent uploads add up exactly. Triggers and not store code because foreign keys
 * change these rows without any store running: deleting a repository cascades to its attachments
 * and unlinks its packages (SET NULL), deleting an account cascades to its packages, versions and
 * files. Each level adds to its direct parent only (file → version → package → repository or
 * owner), so whatever order a cascade takes, a parent deleted first simply absorbs nothing more.
 * Item inserts and deletes are handled per statement (one update per parent for a bulk statement);
 * the columns that move an item are watched per row, so download counters and renames cost nothing.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Keeps `parent.total` equal to the sum of `child.size` over the children whose `key` is its id,
 * and `parent.count` (when named) equal to their number.
 */
const rollUp = (child: string, key: string, parent: string, total: string, count?: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counted = (sign: string) => count === undefined ? "" : `, ${count} = ${count} ${sign} 1`
    yield* sql.unsafe(`CREATE FUNCTION ${child}_sizes_added_or_removed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ${parent} p SET ${total} = p.${total} + d.bytes${count === undefined ? "" : `, ${count} = p.${count} + d.items`}
        FROM (SELECT ${key} AS id, sum(size) * CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END AS bytes,
                count(*) * CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END AS items
              FROM changed GROUP BY ${key}) d
        WHERE p.id = d.id${count === undefined ? " AND d.bytes <> 0" : ""};
        RETURN NULL;
      END $$`)
    yield* sql.unsafe(`CREATE FUNCTION ${child}_size_moved() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ${parent} SET ${total} = ${total} - OLD.size${counted("-")} WHERE id = OLD.${key};
        UPDATE ${parent} SET ${total} = ${total} + NEW.size${counted("+")} WHERE id = NEW.${key};
        RETURN NULL;
      END $$`)
    yield* sql.unsafe(`CREATE TRIGGER ${child}_sizes_added AFTER INSERT ON ${child}
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ${child}_sizes_added_or_removed()`)
    yield* sql.unsafe(`CREATE TRIGGER ${child}_sizes_removed AFTER DELETE ON ${child}
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ${child}_sizes_added_or_removed()`)
    yield* sql.unsafe(`CREATE TRIGGER ${child}_size_moved AFTER UPDATE OF size, ${key} ON ${child}
      FOR EACH ROW WHEN (OLD.size <> NEW.size OR OLD.${key} <> NEW.${key}) EXECUTE FUNCTION ${child}_size_moved()`)
  })

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // No item may change between the backfill and the triggers (a second server on the same database).
  yield* sql`LOCK TABLE repositories, attachments, packages, package_versions, package_files IN SHARE ROW EXCLUSIVE MODE`

  yield* sql`ALTER TABLE repositories
    ADD COLUMN attachments_size bigint NOT NULL DEFAULT 0,
    ADD COLUMN attachments_count bigint NOT NULL DEFAULT 0,
    ADD COLUMN packages_size bigint NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE attachments ADD COLUMN owner_id bigint`
  yield* sql`UPDATE attachments a SET owner_id = r.owner_id FROM repositories r WHERE r.id = a.repo_id`
  yield* sql`ALTER TABLE attachments ALTER COLUMN owner_id SET NOT NULL`
  // The quota list of an owner's attachments, largest first, read in order from this index.
  yield* sql`CREATE INDEX attachments_owner_size ON attachments (owner_id, size DESC, id)`
  yield* sql`ALTER TABLE package_versions ADD COLUMN size bigint NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE packages ADD COLUMN size bigint NOT NULL DEFAULT 0`
  yield* sql`
    CREATE TABLE unlinked_package_usage (
      owner_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      size bigint NOT NULL
    )`

  yield* sql`UPDATE repositories r SET attachments_size = a.size, attachments_count = a.items
    FROM (SELECT repo_id, sum(size) AS size, count(*) AS items FROM attachments GROUP BY repo_id) a WHERE r.id = a.repo_id`
  yield* sql`UPDATE package_versions v SET size = f.size
    FROM (SELECT version_id, sum(size) AS size FROM package_files GROUP BY version_id) f WHERE v.id = f.version_id`
  yield* sql`UPDATE packages p SET size = v.size
    FROM (SELECT package_id, sum(size) AS size FROM package_versions GROUP BY package_id) v WHERE p.id = v.package_id`
  yield* sql`UPDATE repositories r SET packages_size = p.size
    FROM (SELECT repo_id, sum(size) AS size FROM packages WHERE repo_id IS NOT NULL GROUP BY repo_id) p
    WHERE r.id = p.repo_id`
  yield* sql`INSERT INTO unlinked_package_usage (owner_id, size)
    SELECT owner_id, sum(size) FROM packages WHERE repo_id IS NULL GROUP BY owner_id`

  yield* rollUp("attachments", "repo_id", "repositories", "attachments_size", "attachments_count")

  // An attachment's owner is its repository's owner, taken on insert and followed on a transfer.
  // The lock orders an insert after a transfer in progress, so it reads the new owner.
  yield* sql`CREATE FUNCTION attachments_owner_taken() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT owner_id INTO NEW.owner_id FROM repositories WHERE id = NEW.repo_id FOR KEY SHARE;
      RETURN NEW;
    END $$`
  yield* sql`CREATE TRIGGER attachments_owner_taken BEFORE INSERT OR UPDATE OF repo_id, owner_id ON attachments
    FOR EACH ROW EXECUTE FUNCTION attachments_owner_taken()`
  yield* sql`CREATE FUNCTION repositories_owner_followed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE attachments SET owner_id = NEW.owner_id WHERE repo_id = NEW.id;
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER repositories_owner_followed AFTER UPDATE OF owner_id ON repositories
    FOR EACH ROW WHEN (OLD.owner_id <> NEW.owner_id) EXECUTE FUNCTION repositories_owner_followed()`

  yield* rollUp("package_files", "version_id", "package_versions", "size")
  yield* rollUp("package_versions", "package_id", "packages", "size")

  // A package counts for the owner of its linked repository, or for its own owner when unlinked.
  // Subtracting never creates the owner's row: it exists since the bytes were added, and an owner
  // being deleted (its packages cascading away) must not be inserted again.
  yield* sql`CREATE FUNCTION count_package_bytes(owner bigint, repo bigint, delta bigint) RETURNS void
    LANGUAGE plpgsql AS $$
    BEGIN
      IF delta = 0 THEN
        RETURN;
      ELSIF repo IS NOT NULL THEN
        UPDATE repositories SET packages_size = packages_size + delta WHERE id = repo;
      ELSIF delta > 0 THEN
        INSERT INTO unlinked_package_usage (owner_id, size) VALUES (owner, delta)
        ON CONFLICT (owner_id) DO UPDATE SET size = unlinked_package_usage.size + EXCLUDED.size;
      ELSE
        UPDATE unlinked_package_usage SET size = size + delta WHERE owner_id = owner;
      END IF;
    END $$`
  yield* sql`CREATE FUNCTION packages_size_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        PERFORM count_package_bytes(OLD.owner_id, OLD.repo_id, -OLD.size);
      END IF;
      IF TG_OP <> 'DELETE' THEN
        PERFORM count_package_bytes(NEW.owner_id, NEW.repo_id, NEW.size);
      END IF;
      RETURN NULL;
    END $$`
  yield* sql`CREATE TRIGGER packages_size_added AFTER INSERT ON packages
    FOR EACH ROW WHEN (NEW.size <> 0) EXECUTE FUNCTION packages_size_counted()`
  yield* sql`CREATE TRIGGER packages_size_removed AFTER DELETE ON packages
    FOR EACH ROW WHEN (OLD.size <> 0) EXECUTE FUNCTION packages_size_counted()`
  yield* sql`CREATE TRIGGER packages_size_moved AFTER UPDATE OF size, repo_id, owner_id ON packages
    FOR EACH ROW WHEN (OLD.size <> NEW.size OR OLD.repo_id IS DISTINCT FROM NEW.repo_id OR OLD.owner_id <> NEW.owner_id)
    EXECUTE FUNCTION packages_size_counted()`
})
