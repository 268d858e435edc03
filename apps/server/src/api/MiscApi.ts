/** Endpoints outside any resource: the server version. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { API_PREFIX } from "./Paths.ts"

export const ServerVersion = Schema.Struct({ version: Schema.String }).annotate({ identifier: "ServerVersion" })

export class MiscApi extends HttpApiGroup.make("miscellaneous").add(
  HttpApiEndpoint.get("getVersion", "/version", { success: ServerVersion })
    .annotate(OpenApi.Summary, "Returns the version of the running application")
).prefix(API_PREFIX) {}
