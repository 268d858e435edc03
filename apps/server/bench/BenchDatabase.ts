/**
 * A fresh database for one benchmark run: a new temporary data directory, and for the Postgres
 * variant a new database `kiln_bench_<random>` on the server, dropped afterwards.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ConnectionUrl, Database } from "@kiln/postgres"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"

export type DatabaseKind = "embedded" | "postgres"

/** Where a database lives; plain data, so it can be handed to a child process. */
export interface DatabaseLocation {
  readonly kind: DatabaseKind
  /** Kiln's data directory; the embedded database lives in it. */
  readonly dataDir: string
  /** Set for the Postgres variant. */
  readonly databaseUrl?: string
}

/** The name of the server database at `location` (what its Postgres backends name); undefined when embedded. */
export const serverDatabaseName = (location: DatabaseLocation): string | undefined =>
  location.databaseUrl === undefined ? undefined : new URL(location.databaseUrl).pathname.slice(1)

export interface BenchDatabase extends DatabaseLocation {
  readonly dispose: () => Promise<void>
}

/** The client Kiln itself would open for `location`, pool settings included. */
export const clientLayer = (location: DatabaseLocation) =>
  Database.layer({
    databaseUrl: Option.map(Option.fromUndefinedOr(location.databaseUrl), Redacted.make),
    dataDir: location.dataDir
  })

const onServer = <A>(serverUrl: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(TestDatabase.adminLayer(Redacted.make(serverUrl)))
    return yield* use(Context.get(context, SqlClient.SqlClient))
  })))

/** `serverUrl` names the maintenance database of the Postgres server (used only for postgres). */
export const create = async (kind: DatabaseKind, serverUrl: string): Promise<BenchDatabase> => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), `kiln-bench-${kind}-`))
  const removeDir = () => Fs.promises.rm(dataDir, { recursive: true, force: true })
  if (kind === "embedded") return { kind, dataDir, dispose: removeDir }

  const name = `kiln_bench_${randomBytes(6).toString("hex")}`
  try {
    await onServer(serverUrl, (sql) => sql`CREATE DATABASE ${sql(name)}`)
  } catch (error) {
    await removeDir()
    throw new Error(`cannot create a database on ${serverUrl}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return {
    kind,
    dataDir,
    databaseUrl: Redacted.value(ConnectionUrl.withDatabase(Redacted.make(serverUrl), name)),
    dispose: async () => {
      // FORCE: a server that was killed may have left connections behind.
      await onServer(serverUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
      await removeDir()
    }
  }
}
