/**
 * Request decoding failures rendered as Forgejo's binding errors: 422
 * `{"message":"[Field]: Rule","url":...}` naming the Go struct field and the failed rule,
 * only the first problem. Response-encoding failures stay server errors.
 */
import { Effect, Layer, SchemaIssue } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { ApiErrors, ApiValidationFailed } from "./ApiErrors.ts"
import { goJsonSyntaxError } from "./GoJsonSyntaxError.ts"

export class BindingErrors extends HttpApiMiddleware.Service<BindingErrors>()("@kiln/server/BindingErrors", {
  error: ApiValidationFailed
}) {}

/** Go's initialisms, as Forgejo's struct fields spell them (`source_id` → `SourceID`). */
const INITIALISMS = new Set(["id", "url", "ssh", "lfs", "html", "api", "uid", "sha"])

export const goFieldName = (key: string): string =>
  key.split("_").map((part) =>
    INITIALISMS.has(part) ? part.toUpperCase() : part.charAt(0).toUpperCase() + part.slice(1)
  ).join("")

/** The rule a filter stands for: its `message` annotation when set, else Forgejo's name for it. */
const ruleOf = (issue: SchemaIssue.Filter): string => {
  const annotations = issue.filter.annotations
  if (annotations?.message !== undefined && typeof annotations.message === "string") return annotations.message
  const id = (annotations?.representation as { id?: string } | undefined)?.id
  switch (id) {
    case "effect/schema/isMaxLength":
      return "MaxSize"
    case "effect/schema/isMinLength":
    case "effect/schema/isNonEmpty":
      return "Required"
    default:
      return "Invalid"
  }
}

interface Located {
  readonly path: ReadonlyArray<PropertyKey>
  readonly rule: string
}

/** The first leaf problem with the path that leads to it. */
export const firstProblem = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey> = []): Located => {
  switch (issue._tag) {
    case "Pointer":
      return firstProblem(issue.issue, [...path, ...issue.path])
    case "Composite":
      return firstProblem(issue.issues[0], path)
    case "AnyOf":
      return issue.issues.length > 0 ? firstProblem(issue.issues[0] as SchemaIssue.Issue, path) : { path, rule: "Invalid" }
    case "Encoding":
      return firstProblem(issue.issue, path)
    case "Filter":
      return { path, rule: ruleOf(issue) }
    case "MissingKey":
      return { path, rule: "Required" }
    case "InvalidValue":
      return { path, rule: issue.annotations?.message?.toString() ?? "Invalid" }
    case "InvalidType":
      return { path, rule: path.length === 0 ? "Expected a JSON object" : "Invalid type" }
    default:
      return { path, rule: "Invalid" }
  }
}

/** What the HttpApi decoder reports for a body that is not JSON. */
const NOT_JSON = "Expected a valid JSON body"

/**
 * What a body that is not JSON answers: Go's decoder error after `[]: ` (no field to blame), as
 * Forgejo's binding words it. A body Go would read but JSON.parse refuses (only blanks, or a value
 * followed by more text) keeps the decoder's own words.
 */
export const malformedBodyMessage = (text: string): string => `[]: ${goJsonSyntaxError(text) ?? NOT_JSON}`

export const bindingMessage = (issue: SchemaIssue.Issue): string => {
  const { path, rule } = firstProblem(issue)
  const field = path.length > 0 && typeof path[0] === "string" ? goFieldName(path[0]) : ""
  return `[${field}]: ${rule}`
}

export const layer = Layer.unwrap(
  Effect.gen(function*() {
    const errors = yield* ApiErrors
    return HttpApiMiddleware.layerSchemaErrorTransform(BindingErrors, (error) => {
      if (error.kind === "Body" || error.kind === "ResponseHeaders") return Effect.fail(error)
      const issue = error.cause.issue
      if (issue._tag === "InvalidValue" && issue.annotations?.message === NOT_JSON) {
        // The body was read once already; the request keeps it.
        return Effect.flatMap(
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Effect.orDie(request.text)),
          (text) => Effect.fail(errors.validation(malformedBodyMessage(text)))
        )
      }
      return Effect.fail(errors.validation(bindingMessage(issue)))
    })
  })
)
