/**
 * Releases with their attachments, and the package registry (packages, versions, files,
 * content-addressed blobs). The files themselves live on disk (BlobStorage); rows name them by
 * attachment UUID and blob SHA-256.
 *
 * The quota lists read these tables per owner through the indexes below: release attachments by
 * repository (repo_id INCLUDE size, reached from repositories_owner_usage), package files by
 * version, versions by package, packages by owner or by linked repository. Usage totals are kept
 * on write since 0007_usage_totals.
 * Publishers and uploaders keep no foreign key: their releases outlive their accounts (shown as
 * the ghost user), as in Forgejo.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE releases (
      id bigserial PRIMARY KEY,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      publisher_id bigint NOT NULL,
      tag_name text NOT NULL,
      lower_tag_name text NOT NULL,
      target text NOT NULL,
      title text NOT NULL,
      note text NOT NULL,
      sha1 text NOT NULL DEFAULT '',
      is_draft boolean NOT NULL,
      is_prerelease boolean NOT NULL,
      hide_archive_links boolean NOT NULL,
      created_at bigint NOT NULL,
      CONSTRAINT releases_repo_tag UNIQUE (repo_id, lower_tag_name)
    )`
  // The list order: newest first, per repository.
  yield* sql`CREATE INDEX releases_repo_created ON releases (repo_id, created_at DESC, id DESC)`
  yield* sql`
    CREATE TABLE attachments (
      id bigserial PRIMARY KEY,
      uuid uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      release_id bigint NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
      uploader_id bigint NOT NULL,
      name text NOT NULL,
      size bigint NOT NULL CHECK (size >= 0),
      sha256 text NOT NULL,
      download_count bigint NOT NULL DEFAULT 0,
      external_url text NOT NULL DEFAULT '',
      created_at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX attachments_release ON attachments (release_id, name, id)`
  yield* sql`CREATE INDEX attachments_repo_usage ON attachments (repo_id) INCLUDE (size)`
  yield* sql`
    CREATE TABLE packages (
      id bigserial PRIMARY KEY,
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      repo_id bigint REFERENCES repositories (id) ON DELETE SET NULL,
      type text NOT NULL,
      name text NOT NULL,
      lower_name text NOT NULL,
      CONSTRAINT packages_owner_type_name UNIQUE (owner_id, type, lower_name)
    )`
  yield* sql`CREATE INDEX packages_repo ON packages (repo_id) WHERE repo_id IS NOT NULL`
  yield* sql`
    CREATE TABLE package_versions (
      id bigserial PRIMARY KEY,
      package_id bigint NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
      creator_id bigint NOT NULL,
      version text NOT NULL,
      lower_version text NOT NULL,
      download_count bigint NOT NULL DEFAULT 0,
      created_at bigint NOT NULL,
      CONSTRAINT package_versions_package_version UNIQUE (package_id, lower_version)
    )`
  yield* sql`
    CREATE TABLE package_blobs (
      id bigserial PRIMARY KEY,
      size bigint NOT NULL CHECK (size >= 0),
      hash_md5 text NOT NULL,
      hash_sha1 text NOT NULL,
      hash_sha256 text NOT NULL UNIQUE,
      hash_sha512 text NOT NULL,
      created_at bigint NOT NULL
    )`
  // A blob row goes only with its last file: RESTRICT turns a mistake into an error, not a dangling file.
  yield* sql`
    CREATE TABLE package_files (
      id bigserial PRIMARY KEY,
      version_id bigint NOT NULL REFERENCES package_versions (id) ON DELETE CASCADE,
      blob_id bigint NOT NULL REFERENCES package_blobs (id) ON DELETE RESTRICT,
      name text NOT NULL,
      lower_name text NOT NULL,
      size bigint NOT NULL CHECK (size >= 0),
      created_at bigint NOT NULL,
      CONSTRAINT package_files_version_name UNIQUE (version_id, lower_name)
    )`
  yield* sql`CREATE INDEX package_files_blob ON package_files (blob_id)`
  // Usage and the quota list sum file sizes per version from this index alone.
  yield* sql`CREATE INDEX package_files_version_usage ON package_files (version_id) INCLUDE (size)`
})
