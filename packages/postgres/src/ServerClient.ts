/**
 * The client of a PostgreSQL server, on two pools. Statements outside a transaction are pipelined
 * on a few shared connections (sql-pg's `multiplex`); transactions, streams and listeners each take
 * a connection of their own from the other pool, so they never touch a shared one.
 *
 * One pool cannot do both: multiplexed, a transaction pins a shared connection without waiting for
 * the statements already leased on it (`Pool.reserve`), which then wait out the transaction (API
 * reads waited up to 0.9 s behind pushes while PostgreSQL sat idle); not multiplexed, every statement
 * holds a connection for its whole round trip, and GET repository served ~0.6x the requests.
 *
 * `PgClient.make` builds its client from one pool, so this one is composed here from the same parts:
 * sql-pg's pools and compiler, and effect's `SqlClient.make`.
 *
 * The shared connections' sockets cork what one turn of the event loop writes (CoalescingSocket.ts);
 * a transaction's connection writes one statement and waits for it, so it has nothing to coalesce
 * and is not held back.
 */
import { PgClient, type PgConnection, PgPool } from "@effect/sql-pg"
import { Array as Arr, Effect, Stream } from "effect"
import type * as Scope from "effect/Scope"
import type * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import * as CoalescingSocket from "./CoalescingSocket.ts"
import * as ConnectionUrl from "./ConnectionUrl.ts"

export interface PoolSizes {
  /** Shared connections, each carrying up to 32 statements at once. */
  readonly shared: number
  /** Connections for transactions, streams and listeners, one each. */
  readonly own: number
}

type Acquirer = Effect.Effect<PgConnection.PgConnection, SqlError.SqlError, Scope.Scope>

/** A native session as effect's SQL client sees it; its streams run on a connection from `streams`. */
class Connection implements SqlConnection.Connection {
  readonly session: PgConnection.PgConnection
  readonly streams: Acquirer | undefined

  constructor(session: PgConnection.PgConnection, streams: Acquirer | undefined) {
    this.session = session
    this.streams = streams
  }

  private rows(sql: string, params: ReadonlyArray<unknown>, prepare: boolean) {
    return Effect.map(this.session.query(sql, params, prepare), (result) => result.rows)
  }

  execute(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    const rows = this.rows(sql, params, true)
    return transformRows === undefined ? rows : Effect.map(rows, transformRows)
  }

  executeUnprepared(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    const rows = this.rows(sql, params, false)
    return transformRows === undefined ? rows : Effect.map(rows, transformRows)
  }

  executeRaw(sql: string, params: ReadonlyArray<unknown>) {
    return this.session.query(sql, params)
  }

  executeValues(sql: string, params: ReadonlyArray<unknown>) {
    return this.session.queryValues(sql, params)
  }

  executeValuesUnprepared(sql: string, params: ReadonlyArray<unknown>) {
    return this.session.queryValues(sql, params, false)
  }

  executeStream(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    const rows = this.streams === undefined
      ? this.session.stream(sql, params)
      : Stream.unwrap(Effect.map(this.streams, (session) => session.stream(sql, params)))
    // A transform maps rows one to one, so a chunk stays non-empty.
    return transformRows === undefined ? rows : Stream.mapArray(rows, (chunk) => {
      const transformed = transformRows(chunk)
      return Arr.isReadonlyArrayNonEmpty(transformed) ? transformed : chunk
    })
  }
}

const isResult = (value: unknown): value is { readonly command: string } =>
  typeof value === "object" && value !== null && "command" in value && typeof value.command === "string"

/** PostgreSQL answers `COMMIT` of an aborted transaction with `ROLLBACK`: that is a failure. */
const commit = (connection: SqlConnection.Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    isResult(result) && result.command === "ROLLBACK"
      ? Effect.fail(new SqlError.SqlError({
        reason: new SqlError.UnknownError({
          cause: new Error("COMMIT rolled back an aborted transaction"),
          message: "COMMIT rolled back an aborted transaction",
          operation: "commit"
        })
      }))
      : Effect.void)

const PgJson = Statement.custom<PgClient.PgCustom>("PgJson")

export const make = (
  config: PgClient.PgPoolConfig,
  sizes: PoolSizes
): Effect.Effect<PgClient.PgClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const base = { ...config, multiplex: false }
    // Only where the URL alone says where and how to connect (the driver applies `keepAlive` to its
    // own sockets only); a URL the driver would refuse gets no socket of ours (the driver reports it).
    const fromUrl = config.stream === undefined && config.host === undefined && config.port === undefined &&
      config.path === undefined && config.keepAlive === undefined
    const target = fromUrl && config.url !== undefined ? ConnectionUrl.socketTarget(config.url) : undefined
    const coalescing = target === undefined ? {} : { stream: () => CoalescingSocket.connect(target) }
    const shared = yield* PgPool.make({ ...base, ...coalescing, multiplex: true, maxConnections: sizes.shared })
    const own = yield* PgPool.make({ ...base, maxConnections: sizes.own })
    const onShared = (session: PgConnection.PgConnection) => new Connection(session, own.reserve)
    const client = yield* SqlClient.make({
      acquirer: Effect.map(shared.get, onShared),
      borrower: (f) => shared.use((session) => f(onShared(session))),
      transactionAcquirer: Effect.map(own.reserve, (session) => new Connection(session, undefined)),
      compiler: PgClient.makeCompiler(config.transformQueryNames, config.transformJson),
      driver: "pg",
      prepareTransactionControls: true,
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["db.namespace", config.database ?? config.username ?? "postgres"],
        ["server.address", config.host ?? "localhost"],
        ["server.port", config.port ?? 5432]
      ],
      transformRows: config.transformResultNames === undefined
        ? undefined
        : Statement.defaultTransforms(config.transformResultNames, config.transformJson).array
    })
    const pg: PgClient.PgClient = Object.assign(client, {
      [PgClient.TypeId]: PgClient.TypeId,
      // What a client derived from this one (`{ ...pg.config, maxConnections: 1 }`) starts from.
      config: { ...base, maxConnections: sizes.shared + sizes.own },
      json: (value: unknown) => Statement.fragment([PgJson(value, undefined, undefined)]),
      listen: (channel: string) => Effect.flatMap(own.reserve, (session) => session.listen(channel)),
      notify: (channel: string, payload: string) =>
        Effect.scoped(Effect.flatMap(shared.get, (session) => Effect.asVoid(session.query("SELECT pg_notify($1, $2)", [channel, payload]))))
    } as const)
    return pg
  })
