/**
 * What a restore refuses and what it migrates: a dump of an older schema is restored and brought up
 * to date; a changed byte, a newer schema, a data directory or database that is not empty are
 * refused with a clear message, and a refused restore leaves both targets as empty as it found them.
 */
import { assert, describe, it } from "@effect/vitest"
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { createGunzip, createGzip } from "node:zlib"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { Migrations as MigrationRun } from "@kiln/postgres"
import * as DatabaseRestore from "@kiln/postgres/backup/DatabaseRestore"
import * as Migrations from "@kiln/postgres/migrations"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import * as TarStream from "tar-stream"
import { dump } from "../../src/backup/Dump.ts"
import { restore } from "../../src/backup/Restore.ts"
import { runCli, temporaryDirectory } from "./BackupFixtures.ts"

const quiet = () => ({ update: () => {}, done: () => {} })

/** A database of its own for each use (two in one test: the source and the target). */
const database = () => Layer.fresh(TestDatabase.layer)

const OLD_VERSION = 8

/** A dump of a database left at schema version 8 with one account. */
const olderDump = Effect.gen(function*() {
  const archive = join(temporaryDirectory("kiln-restore-checks-"), "old.tar.gz")
  yield* Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* MigrationRun.run(Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= OLD_VERSION)))
    yield* sql`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
      VALUES ('Old', 'old', 'old@example.com', 'individual', 'public', 1, 1)`
    yield* dump({ output: archive, dataDir: temporaryDirectory("kiln-restore-source-"), signingKey: Option.none(), progress: quiet })
  }).pipe(Effect.provide(database()))
  return archive
})

/** The archive rewritten with `change` applied to each entry's bytes. */
const rewritten = (archive: string, change: (name: string, content: Buffer) => Buffer) =>
  Effect.promise(async () => {
    const output = archive.replace(/\.tar\.gz$/, `-${Math.random().toString(36).slice(2)}.tar.gz`)
    const reader = TarStream.extract()
    const writer = TarStream.pack()
    const written = pipeline(writer, createGzip(), createWriteStream(output))
    const read = pipeline(createReadStream(archive), createGunzip(), reader)
    for await (const entry of reader) {
      const chunks: Array<Buffer> = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      const content = change(entry.header.name, Buffer.concat(chunks))
      await new Promise<void>((resolve, reject) =>
        writer.entry({ ...entry.header, size: content.length }, content, (error) => error ? reject(error) : resolve()))
    }
    await read
    writer.finalize()
    await written
    return output
  })

const restoreInto = (archive: string, dataDir: string) =>
  restore({ input: archive, dataDir, progress: quiet }).pipe(Effect.flip)

describe("kiln restore", () => {
  it.live("restores an older schema's dump and migrates it", () =>
    Effect.gen(function*() {
      const archive = yield* olderDump
      const dataDir = join(temporaryDirectory("kiln-restore-target-"), "data")
      yield* Effect.gen(function*() {
        const summary = yield* restore({ input: archive, dataDir, progress: quiet })
        assert.strictEqual(summary.manifest.schemaVersion, OLD_VERSION)
        assert.isAbove(summary.schemaVersion, OLD_VERSION)
        const sql = yield* SqlClient.SqlClient
        const users = yield* sql<{ readonly name: string }>`SELECT name FROM users`
        assert.deepStrictEqual(users.map((user) => user.name), ["Old"])
        const applied = yield* sql<{ readonly id: number }>`SELECT max(migration_id)::int AS id FROM effect_sql_migrations`
        assert.strictEqual(applied[0]?.id, summary.schemaVersion)
        // A table of a later migration is there, and the sequence goes on past the restored row.
        yield* sql`SELECT count(*) FROM jobs`
        const next = yield* sql<{ readonly id: string }>`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
          VALUES ('New', 'new', 'new@example.com', 'individual', 'public', 2, 2) RETURNING id::text AS id`
        assert.strictEqual(next[0]?.id, "2")
      }).pipe(Effect.provide(database()))
    }), 120_000)

  it.live("restores an older schema's dump from the command line into a new embedded database, made from the current schema's template", () =>
    Effect.gen(function*() {
      const archive = yield* olderDump
      const dataDir = join(temporaryDirectory("kiln-restore-cli-"), "data")
      const env = { KILN_DATA_DIR: dataDir, KILN_SIGNING_KEY: "none" }
      const restored = yield* Effect.promise(() => runCli(["restore", "--input", archive], env))
      assert.strictEqual(restored.code, 0, restored.stdout + restored.stderr)
      assert.include(restored.stdout, `schema migrated from version ${OLD_VERSION} to`)
      const listed = yield* Effect.promise(() => runCli(["admin", "user", "list"], env))
      assert.include(listed.stdout, "Old\told@example.com")
    }), 120_000)

  it.live("refuses a changed byte, a newer schema, unknown tables, and targets that are not empty, leaving them as they were", () =>
    Effect.gen(function*() {
      const archive = yield* olderDump
      const tampered = yield* rewritten(archive, (name, content) =>
        name.startsWith("database/users/") ? Buffer.from(content.toString("utf8").replace("Old", "Bad")) : content)
      const newer = yield* rewritten(archive, (name, content) =>
        name === "manifest.json" ? Buffer.from(content.toString("utf8").replace(`"schemaVersion": ${OLD_VERSION}`, "\"schemaVersion\": 9999")) : content)
      const foreign = yield* rewritten(archive, (name, content) =>
        name === "manifest.json" ? Buffer.from(content.toString("utf8").replace("\"tables\": [", "\"tables\": [{ \"name\": \"ghosts\", \"rows\": 0, \"columns\": [] },")) : content)

      yield* Effect.gen(function*() {
        const dataDir = join(temporaryDirectory("kiln-restore-refused-"), "data")
        const unknownTable = yield* restoreInto(foreign, dataDir)
        assert.include(unknownTable.message, "tables its schema version does not define: ghosts")
        assert.isTrue(yield* DatabaseRestore.isEmpty)

        const changed = yield* restoreInto(tampered, dataDir)
        assert.include(changed.message, "checksums do not match the manifest for database/users")
        assert.isTrue(!existsSync(dataDir) || readdirSync(dataDir).length === 0, "nothing left in the data directory")
        assert.isTrue(yield* DatabaseRestore.isEmpty)

        const tooNew = yield* restoreInto(newer, dataDir)
        assert.include(tooNew.message, "schema version 9999 is newer than this Kiln's")
        assert.isTrue(yield* DatabaseRestore.isEmpty)

        const occupied = temporaryDirectory("kiln-restore-occupied-")
        writeFileSync(join(occupied, "keep.txt"), "mine")
        const notEmpty = yield* restoreInto(archive, occupied)
        assert.include(notEmpty.message, `the data directory ${occupied} is not empty (keep.txt)`)
        assert.deepStrictEqual(readdirSync(occupied), ["keep.txt"])

        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE someone_elses (id int)`
        mkdirSync(dataDir, { recursive: true })
        const databaseInUse = yield* restoreInto(archive, dataDir)
        assert.include(databaseInUse.message, "the database is not empty")
        yield* sql`SELECT count(*) FROM someone_elses`
      }).pipe(Effect.provide(database()))
    }), 120_000)
})
