/** Users as others see them, the signed-in user, and access tokens (api-facts §8.2–8.4). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiBadRequest, ApiForbidden, ApiNotFound, ApiUnauthorized } from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { AccessTokenJson } from "../wire/AccessToken.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { PublicKeyJson } from "../wire/PublicKey.ts"
import { UserJson } from "../wire/User.ts"
import { API_PREFIX } from "./Paths.ts"
import { IntQuery, PagingQuery } from "./QueryParams.ts"

export const CreateAccessTokenOption = optionPayload("CreateAccessTokenOption", {
  name: { kind: "string", required: true },
  scopes: { kind: "strings" }
})

/** Forgejo answers with a Go map, whose keys encoding/json sorts: `data` before `ok`. */
export const UserSearchResults = Schema.Struct({
  data: Schema.Array(UserJson),
  ok: Schema.Boolean
}).annotate({ identifier: "UserSearchResults" })

const username = { username: Schema.String }
const keyQuery = { fingerprint: Schema.optional(Schema.String), ...PagingQuery }

export class UsersApi extends HttpApiGroup.make("user").add(
  HttpApiEndpoint.get("userGetCurrent", "/user", {
    success: UserJson,
    error: [ApiUnauthorized, ApiForbidden]
  }).annotate(OpenApi.Summary, "Get the authenticated user"),
  HttpApiEndpoint.get("userCurrentListKeys", "/user/keys", {
    query: keyQuery,
    success: Schema.Array(PublicKeyJson),
    error: [ApiUnauthorized, ApiForbidden]
  }).annotate(OpenApi.Summary, "List the authenticated user's public keys"),
  HttpApiEndpoint.get("userSearch", "/users/search", {
    query: { q: Schema.optional(Schema.String), uid: Schema.optional(IntQuery), ...PagingQuery },
    success: UserSearchResults,
    error: [ApiForbidden]
  }).annotate(OpenApi.Summary, "Search for users"),
  HttpApiEndpoint.get("userGet", "/users/:username", {
    params: username,
    success: UserJson,
    error: [ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "Get a user"),
  HttpApiEndpoint.get("userListKeys", "/users/:username/keys", {
    params: username,
    query: keyQuery,
    success: Schema.Array(PublicKeyJson),
    error: [ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "List the given user's public keys"),
  HttpApiEndpoint.get("userGetTokens", "/users/:username/tokens", {
    params: username,
    query: PagingQuery,
    success: Schema.Array(AccessTokenJson),
    error: [ApiUnauthorized, ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "List the authenticated user's access tokens"),
  HttpApiEndpoint.post("userCreateToken", "/users/:username/tokens", {
    params: username,
    payload: CreateAccessTokenOption,
    success: AccessTokenJson.pipe(HttpApiSchema.status(201)),
    error: [ApiBadRequest, ApiUnauthorized, ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "Create an access token"),
  HttpApiEndpoint.delete("userDeleteAccessToken", "/users/:username/tokens/:token", {
    params: { username: Schema.String, token: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [ApiUnauthorized, ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "Delete an access token")
).annotate(ScopeCategories, ["user"]).prefix(API_PREFIX) {}
