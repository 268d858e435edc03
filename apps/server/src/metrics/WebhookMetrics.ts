/**
 * Webhook metrics: delivery attempts by outcome and their time, measured around the HookTransport
 * (what the delivery job sends), and the deliveries queued, counted in the job table when scraped.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { HookTransport, type TransportResult } from "@kiln/domain/webhook/HookTransport"
import { DELIVERY_JOB } from "@kiln/domain/webhook/WebhookEvents"
import { Counter, Gauge, Histogram, type Registry } from "prom-client"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ServerMetrics } from "./ServerMetrics.ts"

/** `success` is a 2xx answer, as the delivery counts it. */
const outcomeOf = (result: TransportResult): string => {
  switch (result._tag) {
    case "Response":
      return result.status >= 200 && result.status < 300
        ? "success"
        : result.status >= 100 && result.status < 600
        ? `status_${Math.floor(result.status / 100)}xx`
        : "status_other"
    case "Failed":
      return result.reason === "timeout" ? "timeout" : "network_error"
    case "Refused":
      return "refused"
  }
}

/**
 * The transport below, measured when /metrics is served (otherwise it is left as it is). Provided
 * over the real transport: `Layer.provide(measuredTransport, NodeHookTransport.layer)`.
 */
export const measuredTransport: Layer.Layer<HookTransport, never, HookTransport> = Layer.effect(
  HookTransport,
  Effect.gen(function*() {
    const transport = yield* HookTransport
    const config = yield* Effect.serviceOption(KilnConfig)
    const metrics = yield* Effect.serviceOption(ServerMetrics)
    if (Option.isNone(metrics) || Option.isNone(config) || Option.isNone(config.value.metricsToken)) return transport
    const registers = [metrics.value.registry]
    const attempts = new Counter({
      name: "kiln_webhook_delivery_attempts_total",
      help: "Webhook delivery attempts by outcome (success, status_4xx, …, timeout, network_error, refused)",
      labelNames: ["outcome"] as const,
      registers
    })
    const duration = new Histogram({
      name: "kiln_webhook_delivery_duration_seconds",
      help: "Time of webhook delivery attempts, by outcome",
      labelNames: ["outcome"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    })
    return HookTransport.of({
      send: (request, options) =>
        Effect.suspend(() => {
          const started = performance.now()
          return Effect.tap(transport.send(request, options), (result) =>
            Effect.sync(() => {
              const outcome = outcomeOf(result)
              attempts.inc({ outcome })
              duration.observe({ outcome }, (performance.now() - started) / 1000)
            }))
        })
    })
  })
)

/** One statement over the pending deliveries (the partial index of pending jobs covers it). */
const queued = `SELECT count(*) FILTER (WHERE run_at <= now())::int AS due, count(*) FILTER (WHERE run_at > now())::int AS later
  FROM jobs WHERE done_at IS NULL AND kind = '${DELIVERY_JOB}'`

/** Registers the queue gauge; it is read from the database when the registry is scraped. */
export const registerQueue = (registry: Registry) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const context = yield* Effect.context<never>()
    new Gauge({
      name: "kiln_webhook_deliveries_queued",
      help: "Webhook deliveries not yet delivered or given up: due now (or being sent), or waiting for a retry's time",
      labelNames: ["state"] as const,
      registers: [registry],
      async collect() {
        const rows = await Effect.runPromiseWith(context)(sql.unsafe<{ due: number; later: number }>(queued))
        this.set({ state: "due" }, rows[0]?.due ?? 0)
        this.set({ state: "scheduled" }, rows[0]?.later ?? 0)
      }
    })
  })
