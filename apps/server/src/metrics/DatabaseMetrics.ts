/**
 * Database metrics: SQL statements timed by kind and counted when they fail, statements waiting for
 * a pooled connection and running on one, open transactions, the time spent waiting for a
 * connection, and the pool's size (plus, on the embedded database, its one session's use).
 *
 * `@effect/sql-pg` keeps its pool to itself, but effect/sql gives every statement a span that
 * records its SQL and, with span propagation on, the moment a connection was handed to it. So when
 * /metrics is served this layer turns tracing on with a tracer that measures those spans; Kiln
 * exports no traces, so nothing else is done with them, and the HTTP server's and client's own
 * spans stay off. Without KILN_METRICS_TOKEN the layer is empty and tracing stays off.
 */
import { Cause, Effect, Exit, Layer, Option, References, Tracer } from "effect"
import { constTrue } from "effect/Function"
import { HttpClient, HttpMiddleware } from "effect/http"
import { Statement } from "effect/sql"
import { Counter, Gauge, Histogram } from "prom-client"
import { Database } from "@kiln/postgres"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ServerMetrics } from "./ServerMetrics.ts"

type StatementKind = "select" | "insert" | "update" | "delete" | "other"

/** The statement's first keyword: a bounded label, never the SQL itself. */
const kindOf = (sql: string): StatementKind => {
  const keyword = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toLowerCase()
  return keyword === "select" || keyword === "insert" || keyword === "update" || keyword === "delete" ? keyword : "other"
}

// Attributes effect/sql sets on a statement's span.
const QUERY_TEXT = "db.query.text"
const CONNECTION_WAIT = "db.client.connection.wait_time_ms"
const TRANSACTION_SPAN = "sql.transaction"

const makeInstruments = (metrics: typeof ServerMetrics.Service) => {
  const registers = [metrics.registry]
  return {
    duration: new Histogram({
      name: "kiln_db_statement_duration_seconds",
      help: "Time of SQL statements on their connection (the wait for one excluded), by first keyword",
      labelNames: ["kind"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers
    }),
    failures: new Counter({
      name: "kiln_db_statement_failures_total",
      help: "SQL statements that failed (not counting interrupted ones), by first keyword",
      labelNames: ["kind"] as const,
      registers
    }),
    wait: new Histogram({
      name: "kiln_db_connection_wait_seconds",
      help: "Time SQL statements waited for a pooled connection",
      buckets: [0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers
    }),
    waiting: new Gauge({ name: "kiln_db_statements_waiting", help: "SQL statements waiting for a pooled connection", registers }),
    running: new Gauge({ name: "kiln_db_statements_running", help: "SQL statements running on a connection", registers }),
    transactions: new Gauge({
      name: "kiln_db_transactions_open",
      help: "Open transactions, each holding a connection of the pool for itself",
      registers
    })
  }
}

type Instruments = ReturnType<typeof makeInstruments>

type SpanOptions = Parameters<Tracer.Tracer["span"]>[0]

/** A statement's span: measures it from the attributes and the end effect/sql gives it. */
class StatementSpan extends Tracer.NativeSpan {
  readonly instruments: Instruments
  statementKind: StatementKind | undefined = undefined
  connectedAt: bigint | undefined = undefined

  constructor(options: SpanOptions, instruments: Instruments) {
    super(options)
    this.instruments = instruments
  }

  override attribute(key: string, value: unknown): void {
    if (this.status._tag === "Ended") return
    super.attribute(key, value)
    if (key === QUERY_TEXT && typeof value === "string" && this.statementKind === undefined) {
      this.statementKind = kindOf(value)
      this.instruments.waiting.inc()
    } else if (key === CONNECTION_WAIT && typeof value === "number" && this.statementKind !== undefined && this.connectedAt === undefined) {
      this.connectedAt = this.startTime + BigInt(Math.round(value * 1e6))
      this.instruments.waiting.dec()
      this.instruments.running.inc()
      this.instruments.wait.observe(value / 1000)
    }
  }

  override end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    super.end(endTime, exit)
    const kind = this.statementKind
    // Another client span (none are made while metrics are on, but a span is not a statement unless it has SQL).
    if (kind === undefined) return
    if (this.connectedAt === undefined) {
      this.instruments.waiting.dec()
    } else {
      this.instruments.running.dec()
      this.instruments.duration.observe({ kind }, Number(endTime - this.connectedAt) / 1e9)
    }
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) this.instruments.failures.inc({ kind })
  }
}

/** An outermost transaction's span (a nested one is a savepoint on the same connection). */
class TransactionSpan extends Tracer.NativeSpan {
  readonly instruments: Instruments

  constructor(options: SpanOptions, instruments: Instruments) {
    super(options)
    this.instruments = instruments
    instruments.transactions.inc()
  }

  override end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    super.end(endTime, exit)
    this.instruments.transactions.dec()
  }
}

const isInTransaction = (parent: Option.Option<Tracer.AnySpan>): boolean =>
  Option.isSome(parent) && parent.value instanceof TransactionSpan

const measuringTracer = (instruments: Instruments, previous: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(options) {
      if (options.kind === "client") return new StatementSpan(options, instruments)
      if (options.name === TRANSACTION_SPAN && !isInTransaction(options.parent)) return new TransactionSpan(options, instruments)
      return previous.span(options)
    }
  })

/** The pool's size and, on the embedded database, its session's use, read when scraped. */
const registerPool = (metrics: typeof ServerMetrics.Service, pool: Effect.Success<typeof Database.poolOf>) => {
  const registers = [metrics.registry]
  new Gauge({ name: "kiln_db_pool_max_connections", help: "Connections the pool may open", registers }).set(pool.maxConnections)
  if (pool.session() === undefined) return
  new Gauge({
    name: "kiln_db_embedded_connections",
    help: "Connections open to the embedded database's one session",
    registers,
    collect() {
      this.set(pool.session()?.connections ?? 0)
    }
  })
  new Gauge({
    name: "kiln_db_embedded_session_busy",
    help: "1 while a statement or transaction holds the embedded database's session",
    registers,
    collect() {
      this.set(pool.session()?.busy === true ? 1 : 0)
    }
  })
}

/**
 * Measures the database while /metrics is served: provide it to everything that runs statements
 * (the HTTP application and the background work).
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (Option.isNone(config.metricsToken)) return Layer.empty
  const metrics = yield* ServerMetrics
  registerPool(metrics, yield* Database.poolOf)
  const tracer = measuringTracer(makeInstruments(metrics), yield* Tracer.Tracer)
  return Layer.mergeAll(
    Layer.succeed(Tracer.Tracer, tracer),
    Layer.succeed(References.TracerEnabled, true),
    // Records when each statement got its connection.
    Layer.succeed(Statement.SpanPropagationEnabled, true),
    // Spans of requests served and sent would be made for nothing, and a sent one adds trace headers.
    Layer.succeed(HttpMiddleware.TracerDisabledWhen, constTrue),
    Layer.succeed(HttpClient.TracerDisabledWhen, constTrue)
  )
}))
