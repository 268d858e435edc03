/**
 * The database Kiln runs on: a PostgreSQL server when a URL is configured, otherwise PGlite
 * persisted in the data directory. Both are reached through `@effect/sql-pg`, so every query,
 * migration and store runs the same SQL on both.
 */
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import type * as Scope from "effect/Scope"
import { SqlClient, type SqlError } from "effect/sql"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as ConnectionUrl from "./ConnectionUrl.ts"
import * as DataDirLock from "./DataDirLock.ts"
import { createExtensions } from "./Extensions.ts"
import * as Migrations from "./Migrations.ts"
import { MIGRATIONS_FINGERPRINT } from "./migrations/Fingerprint.ts"
import { loader } from "./migrations/index.ts"
import * as PgliteBridge from "./PgliteBridge.ts"
import * as PgliteTemplate from "./PgliteTemplate.ts"
import * as ServerClient from "./ServerClient.ts"

export class DatabaseOpenFailed extends Schema.TaggedError<DatabaseOpenFailed>()("DatabaseOpenFailed", {
  path: Schema.String,
  cause: Schema.Unknown
}) {
  override get message(): string {
    return `could not open the database in ${this.path}: ${String(this.cause)}`
  }
}

export type Client = PgClient.PgClient | SqlClient.SqlClient

/**
 * PostgreSQL settings of the embedded database. PGlite's defaults are a server's (shared_buffers
 * 128MB, maintenance_work_mem 64MB), and they live in its WebAssembly memory, which grows but never
 * shrinks: the buffer pool alone made ~125 MB of the process's resident memory from the start. One
 * backend serving one application needs less; pages beyond the pool are read from the data dir
 * through the OS page cache.
 */
const pgliteSettings = ["shared_buffers=16MB", "maintenance_work_mem=16MB"]

// Any constant: advisory lock keys are per database, and this one only guards extension setup.
const extensionLockKey = 0x6b696c6f // "kilo"

/**
 * `CREATE EXTENSION IF NOT EXISTS` is not safe against itself: two processes starting together
 * can both miss the extension and one then fails on a unique index. The lock serialises them.
 */
const ensureExtensions = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(${extensionLockKey})`
    yield* sql.unsafe(createExtensions)
  }))
})

const withExtensions = <E>(client: Layer.Layer<Client, E>): Layer.Layer<Client, E | SqlError.SqlError> =>
  Layer.effectDiscard(ensureExtensions).pipe(Layer.provideMerge(client))

/**
 * Connections per process on a PostgreSQL server: statements share a few, pipelined; transactions,
 * streams and the process's listeners (3) hold one each (ServerClient.ts). The embedded database has
 * one connection.
 */
const SERVER_POOLS: ServerClient.PoolSizes = { shared: 3, own: 7 }

export const SERVER_CONNECTIONS = SERVER_POOLS.shared + SERVER_POOLS.own

/** A PostgreSQL server (ServerClient.ts for why it has two pools). */
export const layerServer = (url: Redacted.Redacted<string>): Layer.Layer<Client, SqlError.SqlError> =>
  withExtensions(PgClient.layerFrom(ServerClient.make({ url, ...ConnectionUrl.defaultNames(url) }, SERVER_POOLS)))

/**
 * Which template a new embedded database is copied from: `empty` (initdb and the extensions), or
 * `migrated`, which also has Kiln's migrations applied (a restore of a dump of the current schema
 * then skips ~1 s of DDL; DatabaseRestore replaces the schema when the dump's is older).
 */
export type Template = "empty" | "migrated"

const migratedVariant: PgliteTemplate.Variant = {
  name: `migrated-${MIGRATIONS_FINGERPRINT}`,
  prepare: (db) =>
    Effect.runPromise(Effect.scoped(Effect.asVoid(Migrations.run(loader)).pipe(Effect.provide(layerPgliteClient(db))))).then(
      () => PgliteBridge.whenClosed(db)
    )
}

/**
 * Makes both templates now, when they are missing: the build runs this once beside a new bundle, so
 * that neither a server's first start nor the first restore after an install makes them (initdb and
 * the migrations, ~5 s of CPU). Without it they are made on first use.
 */
export const prepareTemplates = async (): Promise<ReadonlyArray<string>> => [
  await PgliteTemplate.ensureDirectory(),
  await PgliteTemplate.ensureDirectory(migratedVariant)
]

/**
 * A data directory without a database yet gets a copy of the template (PgliteTemplate.ts) instead
 * of running initdb. When the template cannot be made or copied (e.g. a read-only install), the
 * directory stays empty and PGlite runs initdb itself.
 */
const fromTemplate = async (dataDir: string, template: Template): Promise<void> => {
  if (Fs.existsSync(Path.join(dataDir, "PG_VERSION"))) return
  // Copied beside it and renamed: a copy cut short never looks like a database.
  const copy = `${dataDir}.template-${process.pid}`
  try {
    const source = await PgliteTemplate.ensureDirectory(template === "migrated" ? migratedVariant : undefined)
    // Not on the main thread: a restore reads its archive meanwhile.
    await PgliteTemplate.copyDirectory(source, copy)
    await Fs.promises.rm(dataDir, { recursive: true, force: true })
    await Fs.promises.rename(copy, dataDir)
  } catch {
    await Fs.promises.rm(copy, { recursive: true, force: true })
    await Fs.promises.mkdir(dataDir, { recursive: true })
  }
}

/** A PGlite instance, closed when the scope ends (PGlite on disk only flushes on a clean close). */
export const openPglite = (options: {
  readonly dataDir?: string
  readonly loadDataDir?: Blob
  /** More `name=value` settings for this start only. */
  readonly settings?: ReadonlyArray<string>
  /** For a new database in `dataDir`; `empty` when not given. */
  readonly template?: Template
}): Effect.Effect<PGlite, DatabaseOpenFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // Imported here: a server on a PostgreSQL server never loads PGlite.
      try: async () => {
        const [{ PGlite }, { pg_trgm }] = await Promise.all([
          import("@electric-sql/pglite"),
          import("@electric-sql/pglite/contrib/pg_trgm")
        ])
        if (options.loadDataDir === undefined && options.dataDir !== undefined) await fromTemplate(options.dataDir, options.template ?? "empty")
        const loadDataDir = options.loadDataDir
        return PGlite.create({
          // Extensions PGlite must load at start: later schema needs trigram indexes.
          extensions: { pg_trgm },
          startParams: [
            ...PGlite.defaultStartParams,
            ...[...pgliteSettings, ...(options.settings ?? [])].flatMap((setting) => ["-c", setting])
          ],
          ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
          ...(loadDataDir === undefined ? {} : { loadDataDir })
        })
      },
      catch: (cause) => new DatabaseOpenFailed({ path: options.dataDir ?? "memory://", cause })
    }),
    (db) =>
      Effect.promise(async () => {
        // Connections reset the shared session as they close; let them finish before shutting down.
        // Bounded, and unref'd so a finished process does not linger on the timer.
        await Promise.race([
          PgliteBridge.whenClosed(db),
          new Promise((resolve) => setTimeout(resolve, 5_000).unref())
        ])
        await db.close()
      })
  )

/**
 * `PgClient` over an open PGlite. One connection: PGlite is a single session, so more connections
 * would only queue on the bridge's lock, and a closing one would discard the others' statements.
 */
export const layerPgliteClient = (db: PGlite): Layer.Layer<Client, SqlError.SqlError> =>
  withExtensions(PgClient.layer({
    stream: PgliteBridge.connector(db),
    username: "postgres",
    database: "postgres",
    maxConnections: 1,
    minConnections: 1,
    idleTimeout: "1 hour"
  }))

/**
 * The client's pool as the metrics report it: its size, and for the embedded database the use of
 * its one session (the driver's own pool keeps its counts to itself).
 */
export const poolOf = Effect.map(PgClient.PgClient, (pg) => ({
  maxConnections: pg.config.stream === undefined ? SERVER_CONNECTIONS : 1,
  session: (): PgliteBridge.SessionUse | undefined => PgliteBridge.sessionUse(pg.config.stream)
}))

/** PGlite stored under `<dataDir>/db`, locked against other processes. */
export const layerPglite = (
  dataDir: string,
  settings: ReadonlyArray<string> = [],
  template: Template = "empty"
): Layer.Layer<Client, SqlError.SqlError | DataDirLock.DataDirInUse | DataDirLock.DataDirLockFailed | DatabaseOpenFailed> =>
  Layer.unwrap(Effect.gen(function*() {
    yield* DataDirLock.acquire(dataDir)
    const path = Path.resolve(dataDir, "db")
    yield* Effect.try({
      try: () => Fs.mkdirSync(path, { recursive: true }),
      catch: (cause) => new DatabaseOpenFailed({ path, cause })
    })
    const db = yield* openPglite({ dataDir: path, settings, template })
    return layerPgliteClient(db)
  }))

export interface Options {
  /** A `postgres://` URL; without one, PGlite in `dataDir` is used. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
  /** More settings for an embedded database's start (a server's are its own). */
  readonly embeddedSettings?: ReadonlyArray<string>
  /** The template a new embedded database is copied from; `empty` when not given. */
  readonly embeddedTemplate?: Template
}

export const layer = (
  options: Options
): Layer.Layer<Client, SqlError.SqlError | DataDirLock.DataDirInUse | DataDirLock.DataDirLockFailed | DatabaseOpenFailed> =>
  Option.match(options.databaseUrl, {
    onNone: () => layerPglite(options.dataDir, options.embeddedSettings, options.embeddedTemplate),
    onSome: layerServer
  })
