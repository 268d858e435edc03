/**
 * Forgejo's `reqToken` + `reqSiteAdmin` on a whole route group. As a middleware it runs before
 * the body is decoded, so an anonymous or non-admin caller never learns whether the body was valid.
 */
import { Effect, Layer } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { ApiErrors, ApiForbidden, ApiUnauthorized } from "./ApiErrors.ts"
import { Caller, requireSiteAdmin } from "./Caller.ts"

export class SiteAdminGate extends HttpApiMiddleware.Service<SiteAdminGate, { requires: Caller }>()(
  "@kiln/server/SiteAdminGate",
  { error: [ApiUnauthorized, ApiForbidden] }
) {}

export const layer = Layer.effect(
  SiteAdminGate,
  Effect.gen(function*() {
    const errors = yield* ApiErrors
    return SiteAdminGate.of((httpEffect) =>
      Effect.andThen(Effect.provideService(requireSiteAdmin, ApiErrors, errors), httpEffect)
    )
  })
)
