import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { Caller } from "../http/Caller.ts"
import { clientAddress } from "../http/ratelimit/Admission.ts"
import { RateLimiter } from "../http/ratelimit/RateLimiter.ts"

/** The API level Kiln serves: Forgejo 11's, with the suffix Gitea SDKs look for. */
export const SERVER_VERSION = "11.0.1+gitea-1.22.0"

export const MiscHandlers = HandlerGroup.group(Api, "miscellaneous", [], Effect.fnUntraced(function*(handlers) {
  const signingKeys = yield* SigningKeys
  const errors = yield* ApiErrors
  const limiter = yield* RateLimiter

  const rateLimit = Effect.gen(function*() {
    const caller = yield* Caller
    const request = yield* HttpServerRequest.HttpServerRequest
    const address = clientAddress(request)
    const core = limiter.budgetOf(caller.principal, address, "core")
    if (core === undefined) return yield* errors.notFoundPlain("Rate limiting is not enabled.")
    const search = limiter.budgetOf(caller.principal, address, "search") ?? core
    const rate = limiter.state(core)
    return { resources: { core: rate, search: limiter.state(search) }, rate }
  })

  return handlers
    .handle("getVersion", () => Effect.succeed({ version: SERVER_VERSION }))
    .handle("getSigningKey", () =>
      signingKeys.armoredPublicKey().pipe(Effect.mapError((failure) => errors.internal(failure.message))))
    .handle("getRateLimit", () => rateLimit)
}))
