import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as ConnectionUrl from "../src/ConnectionUrl.ts"
import * as Database from "../src/Database.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"
import * as ChildProcess from "./fixtures/ChildProcess.ts"
import * as TempDirectory from "./TempDirectory.ts"

const onDisk = (dataDir: string) => Database.layer({ databaseUrl: Option.none(), dataDir })

const notes = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ body: string }>`SELECT body FROM notes ORDER BY body`)

describe("Database", () => {
  it.live("PGlite on disk keeps committed data across processes, killed or closed, and refuses a second one meanwhile", () =>
    Effect.gen(function*() {
      const dataDir = yield* TempDirectory.make
      // Killed: no clean close, yet what it committed is on disk.
      yield* ChildProcess.kill(yield* ChildProcess.start("writeNote.ts", [dataDir, "first"]))
      const writer = yield* ChildProcess.start("writeNote.ts", [dataDir, "second"])
      // While the writer runs, opening the same data directory fails at once and harms nothing.
      const refused = yield* Effect.flip(Effect.scoped(Layer.build(onDisk(dataDir))))
      assert.strictEqual(refused.message, `data directory ${dataDir} is in use by process ${writer.pid}`)
      assert.strictEqual(yield* ChildProcess.finish(writer), 0)
      const bodies = yield* notes.pipe(Effect.provide(onDisk(dataDir)))
      assert.deepStrictEqual(bodies.map((row) => row.body), ["first", "second"])
    }), { timeout: 120_000 })

  it.effect("PGlite runs with the embedded database's small buffer pool and maintenance memory", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase.pglite
      const setting = (name: string) =>
        Effect.promise(() => db.query<{ setting: string }>(`SELECT current_setting('${name}') AS setting`)).pipe(
          Effect.map((result) => result.rows[0]?.setting)
        )
      assert.strictEqual(yield* setting("shared_buffers"), "16MB")
      assert.strictEqual(yield* setting("maintenance_work_mem"), "16MB")
    }), { timeout: 60_000 })

  it.layer(TestDatabase.layer)((it) => {
    it.effect("has pg_trgm on either backend", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ similar: boolean }>`SELECT similarity('kiln', 'kilns') > 0.5 AS similar`
        assert.deepStrictEqual(row, { similar: true })
        yield* sql`CREATE TABLE repos (name text NOT NULL)`
        yield* sql`CREATE INDEX repos_name_trgm ON repos USING gin (name gin_trgm_ops)`
      }))
  })
})

describe("ConnectionUrl", () => {
  const names = (url: string) => ConnectionUrl.defaultNames(Redacted.make(url))
  it("fills in the user and database only when the URL lacks them", () => {
    assert.deepStrictEqual(names("postgres://127.0.0.1:5432"), { username: "postgres", database: "postgres" })
    assert.deepStrictEqual(names("postgres://kiln@db/"), { database: "kiln" })
    assert.deepStrictEqual(names("postgres://kiln:secret@db:5433/forge"), {})
  })
  it("finds where the driver connects: host and port, ?host= and ?port= over them, a Unix socket for a directory", () => {
    const target = (url: string) => ConnectionUrl.socketTarget(Redacted.make(url))
    assert.deepStrictEqual(target("postgres://kiln@db.example:5433/forge"), { _tag: "Tcp", host: "db.example", port: 5433 })
    assert.deepStrictEqual(target("postgres:///forge"), { _tag: "Tcp", host: "localhost", port: 5432 })
    assert.deepStrictEqual(target("postgresql://[::1]:6000/x"), { _tag: "Tcp", host: "::1", port: 6000 })
    assert.deepStrictEqual(target("postgres://db/x?host=other&port=7000"), { _tag: "Tcp", host: "other", port: 7000 })
    assert.deepStrictEqual(target("postgres://kiln@%2Fvar%2Frun%2Fpostgresql/forge"), { _tag: "Unix", path: "/var/run/postgresql/.s.PGSQL.5432" })
    assert.deepStrictEqual(target("postgres:///forge?host=/tmp&port=5433"), { _tag: "Unix", path: "/tmp/.s.PGSQL.5433" })
    // What the driver refuses is left to it.
    assert.isUndefined(target("not a url"))
    assert.isUndefined(target("postgres://db/x?port=99999"))
  })
  it("points a URL at another database on the same server", () => {
    const url = ConnectionUrl.withDatabase(Redacted.make("postgres://kiln:secret@db:5433/forge?sslmode=disable"), "other")
    assert.strictEqual(Redacted.value(url), "postgres://kiln:secret@db:5433/other?sslmode=disable")
  })
})
