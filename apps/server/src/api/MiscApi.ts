/** Endpoints outside any resource: the server version. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiInternalError } from "../http/ApiErrors.ts"
import { API_PREFIX } from "./Paths.ts"

export const ServerVersion = Schema.Struct({ version: Schema.String }).annotate({ identifier: "ServerVersion" })

/** An ASCII-armored OpenPGP public key, or nothing when the instance signs with no key. */
export const ArmoredPublicKey = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }))

export class MiscApi extends HttpApiGroup.make("miscellaneous").add(
  HttpApiEndpoint.get("getVersion", "/version", { success: ServerVersion })
    .annotate(OpenApi.Summary, "Returns the version of the running application"),
  HttpApiEndpoint.get("getSigningKey", "/signing-key.gpg", { success: ArmoredPublicKey, error: ApiInternalError })
    .annotate(OpenApi.Summary, "Get default signing-key.gpg")
    .annotate(OpenApi.Description, "The public key that signs commits the server creates; empty when signing is off.")
).prefix(API_PREFIX) {}
