/** Endpoints outside any resource: the server version, the signing key, the caller's rate limits. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiInternalError, ApiNotFound } from "../http/ApiErrors.ts"
import { API_PREFIX } from "./Paths.ts"

export const ServerVersion = Schema.Struct({ version: Schema.String }).annotate({ identifier: "ServerVersion" })

/** One budget as GitHub's `/rate_limit` shows it (`reset`: unix seconds). */
export const RateLimitState = Schema.Struct({
  limit: Schema.Number,
  used: Schema.Number,
  remaining: Schema.Number,
  reset: Schema.Number
}).annotate({ identifier: "RateLimitState" })

export const RateLimitOverview = Schema.Struct({
  resources: Schema.Struct({ core: RateLimitState, search: RateLimitState }),
  rate: RateLimitState
}).annotate({ identifier: "RateLimitOverview" })

/** An ASCII-armored OpenPGP public key, or nothing when the instance signs with no key. */
export const ArmoredPublicKey = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }))

export class MiscApi extends HttpApiGroup.make("miscellaneous").add(
  HttpApiEndpoint.get("getVersion", "/version", { success: ServerVersion })
    .annotate(OpenApi.Summary, "Returns the version of the running application"),
  HttpApiEndpoint.get("getSigningKey", "/signing-key.gpg", { success: ArmoredPublicKey, error: ApiInternalError })
    .annotate(OpenApi.Summary, "Get default signing-key.gpg")
    .annotate(OpenApi.Description, "The public key that signs commits the server creates; empty when signing is off."),
  HttpApiEndpoint.get("getRateLimit", "/rate_limit", { success: RateLimitOverview, error: ApiNotFound })
    .annotate(OpenApi.Summary, "Get the caller's rate-limit budgets without spending them")
    .annotate(
      OpenApi.Description,
      "GitHub's `/rate_limit`: the budget of the signed-in user (or of the client address) for requests " +
        "and for searches. 404 when the caller has no budget (limits off, or an exempt site administrator)."
    )
).prefix(API_PREFIX) {}
