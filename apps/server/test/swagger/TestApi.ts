/**
 * A small HttpApi shaped like Kiln's: Forgejo-named groups and endpoints under /api/v1, an
 * authentication middleware with token/bearer/basic, tagless error bodies, optional int query
 * parameters, JSON, text and streamed bodies, 201/204 successes and annotated endpoints.
 */
import { Context, Schema } from "effect"
import { Multipart } from "effect/http"
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"

const ErrorFields = { message: Schema.String, url: Schema.String }
export class APIUnauthorizedError
  extends Schema.Error<APIUnauthorizedError>("APIUnauthorizedError")(ErrorFields, { httpApiStatus: 401 })
{}
export class APIForbiddenError
  extends Schema.Error<APIForbiddenError>("APIForbiddenError")(ErrorFields, { httpApiStatus: 403 })
{}
export class APINotFound extends Schema.Error<APINotFound>("APINotFound")(ErrorFields, { httpApiStatus: 404 }) {}
export class APIValidationError
  extends Schema.Error<APIValidationError>("APIValidationError")(ErrorFields, { httpApiStatus: 422 })
{}

export class User extends Schema.Class<User>("User")({
  id: Schema.Int,
  login: Schema.String,
  full_name: Schema.String,
  email: Schema.String,
  is_admin: Schema.Boolean,
  visibility: Schema.Literals(["public", "limited", "private"]),
  website: Schema.NullOr(Schema.String),
  created: Schema.String
}) {}

export class CreateUserOption extends Schema.Class<CreateUserOption>("CreateUserOption")({
  username: Schema.String.annotate({ description: "login name of the new user" }),
  email: Schema.String,
  password: Schema.optional(Schema.String),
  must_change_password: Schema.optional(Schema.Boolean)
}) {}

export class EditUserOption extends Schema.Class<EditUserOption>("EditUserOption")({
  full_name: Schema.optional(Schema.String),
  admin: Schema.optional(Schema.Boolean)
}) {}

export class ServerVersion extends Schema.Class<ServerVersion>("ServerVersion")({ version: Schema.String }) {}

class CurrentUser extends Context.Service<CurrentUser, User>()("test/swagger/CurrentUser") {}

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "test/swagger/Authentication",
  {
    security: {
      token: HttpApiSecurity.http({ scheme: "token" }),
      bearer: HttpApiSecurity.bearer,
      basic: HttpApiSecurity.basic
    },
    error: APIUnauthorizedError
  }
) {}

const Username = { username: Schema.String }
const Paging = {
  page: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "page number (1-based)" })),
  limit: Schema.optional(Schema.Int.annotate({ description: "page size of results" }))
}
const Html = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

export const quotaCheckDescription = "`true` when the user is within quota for the subject, `false` when over."

const UserGroup = HttpApiGroup.make("user")
  .add(HttpApiEndpoint.get("userGet", "/users/:username", { params: Username, success: User, error: APINotFound }))
  .add(
    HttpApiEndpoint.get("userSearch", "/users/search", {
      query: {
        q: Schema.optional(Schema.String),
        uid: Schema.optional(Schema.Int),
        // Read as text (a bad value means "unset"), published as an integer.
        source_id: Schema.optional(Schema.String.annotate({ format: "int64", description: "login source" })),
        ...Paging
      },
      success: Schema.Array(User)
    })
  )
  .add(
    HttpApiEndpoint.get("userListFollowers", "/users/:username/followers", {
      params: Username,
      query: Paging,
      success: HttpApiSchema.WithHeaders(Schema.Array(User), {
        "x-total-count": Schema.String.annotate({ format: "int64" }),
        link: Schema.optional(Schema.String)
      }),
      error: APINotFound
    })
  )
  .add(
    HttpApiEndpoint.get("userCheckQuota", "/user/quota/check", {
      query: { subject: Schema.String },
      success: Schema.Boolean,
      error: APIValidationError
    })
      .middleware(Authentication)
      .annotateMerge(OpenApi.annotations({
        summary: "Check if the authenticated user is over quota for a given subject",
        description: quotaCheckDescription
      }))
  )

const AdminGroup = HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("adminCreateUser", "/admin/users", {
      payload: CreateUserOption,
      success: User.pipe(HttpApiSchema.status(201)),
      error: [APIForbiddenError, APIValidationError]
    }).annotateMerge(OpenApi.annotations({ summary: "Create a user" }))
  )
  .add(
    HttpApiEndpoint.patch("adminEditUser", "/admin/users/:username", {
      params: Username,
      payload: EditUserOption,
      success: User,
      error: [APIForbiddenError, APINotFound, APIValidationError]
    })
  )
  .add(
    HttpApiEndpoint.delete("adminDeleteUser", "/admin/users/:username", {
      params: Username,
      query: { purge: Schema.optional(Schema.Boolean) },
      success: HttpApiSchema.NoContent,
      error: [APIForbiddenError, APINotFound, APIValidationError]
    })
  )
  .middleware(Authentication)

const MiscellaneousGroup = HttpApiGroup.make("miscellaneous")
  .add(
    HttpApiEndpoint.post("renderMarkdownRaw", "/markdown/raw", {
      payload: Schema.String.pipe(HttpApiSchema.asText()),
      success: Html,
      error: APIValidationError
    })
  )
  .add(HttpApiEndpoint.get("getVersion", "/version", { success: ServerVersion }))

const RepositoryGroup = HttpApiGroup.make("repository")
  .add(
    HttpApiEndpoint.post("repoCreateReleaseAttachment", "/repos/:owner/:repo/releases/:id/assets", {
      params: { owner: Schema.String, repo: Schema.String, id: Schema.NumberFromString },
      payload: Schema.Struct({
        attachment: Multipart.SingleFileSchema,
        name: Schema.optional(Schema.String.annotate({ description: "name of the attachment" }))
      }).pipe(HttpApiSchema.asMultipart()),
      success: Schema.String.pipe(HttpApiSchema.status(201)),
      error: APINotFound
    })
  )
  .add(
    HttpApiEndpoint.get("repoGetRawFile", "/repos/:owner/:repo/raw/*", {
      params: { owner: Schema.String, repo: Schema.String, "*": Schema.String },
      success: HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream" }),
      error: APINotFound
    })
  )

export class TestApi extends HttpApi.make("kiln-test")
  .add(UserGroup, AdminGroup, MiscellaneousGroup, RepositoryGroup)
  .prefix("/api/v1")
{}

export const operationIds = [
  "userGet",
  "userSearch",
  "userListFollowers",
  "userCheckQuota",
  "adminCreateUser",
  "adminEditUser",
  "adminDeleteUser",
  "renderMarkdownRaw",
  "getVersion",
  "repoCreateReleaseAttachment",
  "repoGetRawFile"
] as const
