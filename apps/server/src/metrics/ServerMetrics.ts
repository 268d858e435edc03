/**
 * The server's Prometheus metrics, kept with prom-client (a registry per server, so two Kilns in
 * one process never share counters): requests by route template and status, in-flight requests,
 * git operations, markdown renders under way, Node's process metrics (memory, event-loop delay),
 * and Forgejo's `gitea_*` object counts (ObjectCounts.ts). Served by MetricsRoute.ts, which also
 * turns the process metrics and object counts on; without KILN_METRICS_TOKEN nothing is measured.
 */
import { Context, Effect, Layer } from "effect"
import { Counter, Gauge, Histogram, Registry } from "prom-client"

export type GitOperation = "clone" | "push" | "archive"

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export const make = () => {
  const registry = new Registry()
  const registers = [registry]
  return {
    registry,
    requests: new Counter({
      name: "kiln_http_requests_total",
      help: "HTTP requests answered, by method, route template and status",
      labelNames: ["method", "route", "status"] as const,
      registers
    }),
    requestDuration: new Histogram({
      name: "kiln_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route template and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: durationBuckets,
      registers
    }),
    inFlight: new Gauge({ name: "kiln_http_requests_in_flight", help: "HTTP requests being answered", registers }),
    gitOperations: new Counter({
      name: "kiln_git_operations_total",
      help: "Git operations (clone covers fetches), by transport (http, ssh) and outcome (over HTTP: of their ref advertisement)",
      labelNames: ["operation", "outcome", "transport"] as const,
      registers
    }),
    gitBytes: new Counter({
      name: "kiln_git_bytes_total",
      help: "Bytes of git operations as their Content-Length gave them (received for push, sent for clone and archive)",
      labelNames: ["operation"] as const,
      registers
    }),
    gitDuration: new Histogram({
      name: "kiln_git_operation_duration_seconds",
      help: "Time of the data requests of git operations over HTTP (a protocol v2 fetch makes two)",
      labelNames: ["operation"] as const,
      buckets: durationBuckets,
      registers
    }),
    sshConnections: new Counter({
      name: "kiln_ssh_connections_total",
      help: "SSH connections accepted by the built-in server, by outcome (authenticated, refused, limited, timeout, failed)",
      labelNames: ["outcome"] as const,
      registers
    }),
    sshSessions: new Counter({
      name: "kiln_ssh_sessions_total",
      help: "SSH sessions (exec, shell and other channel requests) of signed-in connections, by what they asked (git, lfs, refused)",
      labelNames: ["kind"] as const,
      registers
    }),
    sshSessionsInProgress: new Gauge({
      name: "kiln_ssh_sessions_in_progress",
      help: "SSH sessions running git or LFS now",
      registers
    }),
    markdownRenders: new Gauge({
      name: "kiln_markdown_renders_in_progress",
      help: "Markdown renders queued or running in the worker pool",
      registers
    })
  }
}

export class ServerMetrics extends Context.Service<ServerMetrics, ReturnType<typeof make>>()("@kiln/server/ServerMetrics") {}

export const layer = Layer.sync(ServerMetrics, make)

/** Counts `effect` as a markdown render under way while it runs. */
export const countingRender = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.serviceOption(ServerMetrics), (metrics) =>
    metrics._tag === "None" ? effect : Effect.acquireUseRelease(
      Effect.sync(() => metrics.value.markdownRenders.inc()),
      () => effect,
      () => Effect.sync(() => metrics.value.markdownRenders.dec())
    ))
