/**
 * Forgejo's `reqToken` on one endpoint, as a middleware so that it runs before the body is
 * decoded: an anonymous caller gets 401 whatever the body (`POST /orgs`).
 */
import { Effect, Layer } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { ApiErrors, ApiUnauthorized } from "./ApiErrors.ts"
import { Caller, requireSignedIn } from "./Caller.ts"

export class SignedInGate extends HttpApiMiddleware.Service<SignedInGate, { requires: Caller }>()(
  "@kiln/server/SignedInGate",
  { error: ApiUnauthorized }
) {}

export const layer = Layer.effect(
  SignedInGate,
  Effect.gen(function*() {
    const errors = yield* ApiErrors
    return SignedInGate.of((httpEffect) => Effect.andThen(Effect.provideService(requireSignedIn, ApiErrors, errors), httpEffect))
  })
)
