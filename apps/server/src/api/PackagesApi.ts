/**
 * `GET /api/v1/packages/{owner}`: an owner's package versions [routers/api/v1/packages/package.go].
 * The registry itself (`/api/packages/...`) is outside the API description, as in Forgejo.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiNotFound, ApiUnauthorized } from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { PackageJson } from "../wire/Package.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

export class PackagesApi extends HttpApiGroup.make("package").add(
  HttpApiEndpoint.get("listPackages", "/packages/:owner", {
    params: { owner: Schema.String },
    query: {
      type: Schema.optional(Schema.String.annotate({ description: "package type filter" })),
      q: Schema.optional(Schema.String.annotate({ description: "name filter" })),
      ...PagingQuery
    },
    success: Schema.Array(PackageJson),
    error: [ApiUnauthorized, ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "Gets all packages of an owner")
).annotate(ScopeCategories, ["package"]).prefix(API_PREFIX) {}
