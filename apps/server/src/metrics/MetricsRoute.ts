/**
 * `GET /metrics` in Prometheus' text format, only when KILN_METRICS_TOKEN is set, and then only to
 * `Authorization: Bearer <token>` (Forgejo's routers/web/metrics.go: 401 with an empty line
 * otherwise, the token compared in constant time). Without the setting the route does not exist.
 */
import { timingSafeEqual } from "node:crypto"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { KilnConfig } from "../config/KilnConfig.ts"
import { collectDefaultMetrics } from "prom-client"
import * as ObjectCounts from "./ObjectCounts.ts"
import { ServerMetrics } from "./ServerMetrics.ts"
import * as WebhookMetrics from "./WebhookMetrics.ts"

const sameText = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

const unauthorized = HttpServerResponse.text("\n", { status: 401 })

export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (Option.isNone(config.metricsToken)) return Layer.empty
  const expected = `Bearer ${Redacted.value(config.metricsToken.value)}`
  return HttpRouter.use(Effect.fnUntraced(function*(router) {
    const metrics = yield* ServerMetrics
    collectDefaultMetrics({ register: metrics.registry, prefix: "kiln_" })
    yield* ObjectCounts.register(metrics.registry)
    yield* WebhookMetrics.registerQueue(metrics.registry)
    yield* router.add("GET", "/metrics", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!sameText(request.headers["authorization"] ?? "", expected)) return unauthorized
      const text = yield* Effect.promise(() => metrics.registry.metrics())
      return HttpServerResponse.text(text, { contentType: metrics.registry.contentType })
    }))
  }))
}))
