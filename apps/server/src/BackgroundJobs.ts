/**
 * The server's job worker: claims and runs due background jobs (webhook deliveries and their
 * history pruning) on the application's database, alongside every other Kiln process on it.
 */
import { Effect, Layer, Option } from "effect"
import { WebhookDeliveries } from "@kiln/domain/webhook/WebhookDeliveries"
import * as JobWorker from "@kiln/postgres/coordination/JobWorker"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer = Layer.unwrap(Effect.gen(function*() {
  const deliveries = yield* WebhookDeliveries
  const config = yield* Effect.serviceOption(KilnConfig)
  yield* deliveries.schedule
  return JobWorker.layer(deliveries.handlers, {
    ...JobWorker.defaultOptions,
    listen: Option.match(config, { onNone: () => false, onSome: (settings) => Option.isSome(settings.databaseUrl) })
  })
}))
