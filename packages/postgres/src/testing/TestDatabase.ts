/**
 * A fresh database for each test file, for the tests of every package:
 *
 *   layer(Migrations.layer(loader).pipe(Layer.provideMerge(TestDatabase.layer)))("...", (it) => ...)
 *
 * By default it is PGlite restored from the run's template (PgliteTemplate.ts, globalSetup.ts). With
 * KILN_TEST_DATABASE_URL set (e.g. postgres://postgres@127.0.0.1:5432/test) it is a new database
 * `kiln_t_<random>` created through that server and dropped afterwards, so parallel files and
 * parallel runs never share one. No migrations are applied here: callers add their own.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { inject } from "vitest"
import * as ConnectionUrl from "../ConnectionUrl.ts"
import * as Database from "../Database.ts"
import * as PgliteTemplate from "../PgliteTemplate.ts"

/** PGlite restored from the template, closed with the scope. */
export const pglite = Effect.gen(function*() {
  const snapshot = inject("kilnPgliteSnapshot") ?? (yield* Effect.promise(PgliteTemplate.ensure))
  const loadDataDir = new Blob([Fs.readFileSync(snapshot)])
  return yield* Database.openPglite({ loadDataDir })
})

/** Server settings of a test database, e.g. `{ standard_conforming_strings: "off" }`. */
export type Settings = Readonly<Record<string, string>>

const settingName = /^[a-z_]+$/
const assignments = (settings: Settings) =>
  Object.entries(settings).map(([name, value]) => {
    if (!settingName.test(name)) throw new Error(`not a setting name: ${name}`)
    return `${name} = '${value.replaceAll("'", "''")}'`
  })

/**
 * PGlite with `settings` for the database and for its one session, which the client keeps open
 * (the bridge's `DISCARD ALL` on close would return to the values the session started with).
 */
const layerPglite = (settings: Settings): Layer.Layer<Database.Client, SqlError.SqlError | Database.DatabaseOpenFailed> =>
  Layer.unwrap(Effect.gen(function*() {
    const db = yield* pglite
    for (const assignment of assignments(settings)) {
      yield* Effect.promise(() => db.exec(`ALTER DATABASE postgres SET ${assignment}; SET ${assignment}`))
    }
    return Database.layerPgliteClient(db)
  }))

/** One connection to the database `url` names, for creating and dropping the test databases. */
export const adminLayer = (url: Redacted.Redacted<string>): Layer.Layer<Database.Client, SqlError.SqlError> =>
  PgClient.layer({ url, ...ConnectionUrl.defaultNames(url), maxConnections: 1 })

/**
 * A database of its own on the server at `url`, dropped when the scope closes, with `settings`
 * set on it before any connection opens.
 */
export const layerServer = (url: Redacted.Redacted<string>, settings: Settings = {}): Layer.Layer<Database.Client, SqlError.SqlError> =>
  Layer.unwrap(Effect.map(serverDatabase(url, settings), Database.layerServer))

/**
 * A database of its own on the server at `url` (see `layerServer`), as a URL: for tests whose
 * server processes connect to it themselves.
 */
export const serverDatabase = (
  url: Redacted.Redacted<string>,
  settings: Settings = {}
): Effect.Effect<Redacted.Redacted<string>, SqlError.SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const admin = Context.get(yield* Layer.build(adminLayer(url)), SqlClient.SqlClient)
    const name = `kiln_t_${randomBytes(8).toString("hex")}`
    yield* Effect.acquireRelease(
      admin`CREATE DATABASE ${admin(name)}`,
      // FORCE: a connection that outlived its pool must not keep the database alive.
      () => Effect.ignore(admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`)
    )
    for (const assignment of assignments(settings)) {
      yield* admin`ALTER DATABASE ${admin(name)} SET ${admin.literal(assignment)}`
    }
    return ConnectionUrl.withDatabase(url, name)
  })

/** The test database (see above) with `settings` in force on every connection. */
export const layerWithSettings = (
  settings: Settings
): Layer.Layer<Database.Client, SqlError.SqlError | Database.DatabaseOpenFailed> =>
  Layer.unwrap(Effect.sync(() => {
    const url = process.env["KILN_TEST_DATABASE_URL"]
    return url ? layerServer(Redacted.make(url), settings) : layerPglite(settings)
  }))

export const layer: Layer.Layer<Database.Client, SqlError.SqlError | Database.DatabaseOpenFailed> = layerWithSettings({})
