/**
 * Forgejo's error bodies. Every error is `{"message", "url"}` with `url` pointing at the
 * API documentation; most 404s add an `errors` list. The classes are the wire schemas
 * the endpoints declare; `ApiErrors` builds them with the configured root URL.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import type * as DomainErrors from "@kiln/domain/errors"
import { KilnConfig } from "../config/KilnConfig.ts"

const body = { message: Schema.String, url: Schema.String }

export class ApiBadRequest extends Schema.Error<ApiBadRequest>("ApiBadRequest")(body, { httpApiStatus: 400 }) {}
export class ApiUnauthorized extends Schema.Error<ApiUnauthorized>("APIUnauthorizedError")(body, { httpApiStatus: 401 }) {}
/** Some gates (sudo, account state) answer with a bare `{"message"}`, so `url` is optional. */
export class ApiForbidden extends Schema.Error<ApiForbidden>("APIForbiddenError")({
  message: Schema.String,
  url: Schema.optionalKey(Schema.String)
}, { httpApiStatus: 403 }) {}
export class ApiNotFound extends Schema.Error<ApiNotFound>("APINotFound")({
  message: Schema.String,
  url: Schema.String,
  errors: Schema.optionalKey(Schema.Array(Schema.String))
}, { httpApiStatus: 404 }) {}
export class ApiConflict extends Schema.Error<ApiConflict>("ApiConflict")(body, { httpApiStatus: 409 }) {}
export class ApiPayloadTooLarge extends Schema.Error<ApiPayloadTooLarge>("ApiPayloadTooLarge")(body, { httpApiStatus: 413 }) {}
/** Forgejo's `quotaExceeded` response: the owner the write would count against, no `url`. */
export class ApiQuotaExceeded extends Schema.Error<ApiQuotaExceeded>("APIQuotaExceeded")({
  message: Schema.String,
  user_id: Schema.Number,
  username: Schema.String
}, { httpApiStatus: 413 }) {}
export class ApiValidationFailed extends Schema.Error<ApiValidationFailed>("APIValidationError")(body, { httpApiStatus: 422 }) {}
export class ApiLocked extends Schema.Error<ApiLocked>("ApiLocked")(body, { httpApiStatus: 423 }) {}
/** Overloaded for now (the markdown queue is full); always sent with `Retry-After`. */
export class ApiServiceUnavailable extends Schema.Error<ApiServiceUnavailable>("ApiServiceUnavailable")(body, { httpApiStatus: 503 }) {}
/** A spent rate-limit budget (issue 21); `Retry-After` says when the next window opens. */
export class ApiTooManyRequests extends Schema.Error<ApiTooManyRequests>("ApiTooManyRequests")(body, { httpApiStatus: 429 }) {}
export class ApiInternalError extends Schema.Error<ApiInternalError>("APIError")(body, { httpApiStatus: 500 }) {}

/** A renamed repository's old path (Forgejo's `RedirectToRepo`): where the request goes instead. */
export class ApiMovedPermanently extends Schema.Error<ApiMovedPermanently>("ApiMovedPermanently")({
  location: Schema.String
}, { description: "The repository was renamed: the same request goes to its new name" }) {}

/** How repository routes declare it: 301 with `Location` and no body. */
export const ApiMovedPermanentlyResponse = ApiMovedPermanently.pipe(HttpApiSchema.encodeToWithHeaders({
  body: HttpApiSchema.Empty(301),
  headers: { location: Schema.String }
}, {
  decode: ({ headers }) => new ApiMovedPermanently({ location: headers.location }),
  encode: (moved) => ({ body: undefined, headers: { location: moved.location } })
}))

export type ApiError =
  | ApiBadRequest
  | ApiUnauthorized
  | ApiForbidden
  | ApiNotFound
  | ApiConflict
  | ApiPayloadTooLarge
  | ApiValidationFailed
  | ApiLocked
  | ApiInternalError

export type DomainError =
  | DomainErrors.NotFound
  | DomainErrors.AlreadyExists
  | DomainErrors.Invalid
  | DomainErrors.Forbidden
  | DomainErrors.Conflict

/** Status to use for each domain error where a route departs from the usual mapping. */
export interface DomainStatuses {
  readonly AlreadyExists?: 400 | 409 | 422
  readonly Invalid?: 400 | 422
  readonly Conflict?: 409 | 422 | 500
  readonly NotFound?: 404 | 422
}

export const NOT_FOUND_MESSAGE = "The target couldn't be found."

export interface ApiErrorsService {
  /** `<ROOT_URL>api/swagger`, Forgejo's `url` in every error body. */
  readonly url: string
  readonly badRequest: (message: string) => ApiBadRequest
  readonly unauthorized: (message: string) => ApiUnauthorized
  readonly forbidden: (message: string) => ApiForbidden
  /** A bare `{"message"}` 403, as Forgejo's account-state and sudo gates answer. */
  readonly forbiddenBare: (message: string) => ApiForbidden
  /** Forgejo's `NotFound(label?, err?)`: the label replaces the message, the error joins `errors`. */
  readonly notFound: (label?: string, ...errors: ReadonlyArray<string>) => ApiNotFound
  /** A 404 in the generic `{"message","url"}` shape (path-user lookups, quota routes). */
  readonly notFoundPlain: (message: string) => ApiNotFound
  readonly conflict: (message: string) => ApiConflict
  readonly payloadTooLarge: (message: string) => ApiPayloadTooLarge
  readonly validation: (message: string) => ApiValidationFailed
  readonly internal: (message: string) => ApiInternalError
  /** The usual status of a domain error (404, 409, 422, 403, 409), overridable per route. */
  readonly fromDomain: (error: DomainError, statuses?: DomainStatuses) => ApiError
}

export class ApiErrors extends Context.Service<ApiErrors, ApiErrorsService>()("@kiln/server/ApiErrors") {}

export const make = (rootUrl: string): ApiErrorsService => {
  const url = `${rootUrl}api/swagger`
  const badRequest = (message: string) => new ApiBadRequest({ message, url })
  const conflict = (message: string) => new ApiConflict({ message, url })
  const validation = (message: string) => new ApiValidationFailed({ message, url })
  const internal = (message: string) => new ApiInternalError({ message, url })
  const notFoundPlain = (message: string) => new ApiNotFound({ message, url })
  const byStatus = (status: number, message: string): ApiError => {
    switch (status) {
      case 400:
        return badRequest(message)
      case 404:
        return notFoundPlain(message)
      case 409:
        return conflict(message)
      case 500:
        return internal(message)
      default:
        return validation(message)
    }
  }
  return {
    url,
    badRequest,
    unauthorized: (message) => new ApiUnauthorized({ message, url }),
    forbidden: (message) => new ApiForbidden({ message, url }),
    forbiddenBare: (message) => new ApiForbidden({ message }),
    notFound: (label, ...errors) => new ApiNotFound({ message: label ?? NOT_FOUND_MESSAGE, url, errors: [...errors] }),
    notFoundPlain,
    conflict,
    payloadTooLarge: (message) => new ApiPayloadTooLarge({ message, url }),
    validation,
    internal,
    fromDomain: (error, statuses = {}) => {
      switch (error._tag) {
        case "NotFound":
          return statuses.NotFound === 422
            ? validation(error.message)
            : new ApiNotFound({ message: NOT_FOUND_MESSAGE, url, errors: [error.message] })
        case "AlreadyExists":
          return byStatus(statuses.AlreadyExists ?? 409, error.message)
        case "Invalid":
          return byStatus(statuses.Invalid ?? 422, error.message)
        case "Forbidden":
          return new ApiForbidden({ message: error.message, url })
        case "Conflict":
          return byStatus(statuses.Conflict ?? 409, error.message)
      }
    }
  }
}

export const layer: Layer.Layer<ApiErrors, never, KilnConfig> = Layer.effect(
  ApiErrors,
  Effect.gen(function*() {
    const config = yield* KilnConfig
    return make(config.rootUrl)
  })
)
