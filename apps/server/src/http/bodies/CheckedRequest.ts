/**
 * The request an API route sees: the platform's request, whose body readers apply the route's rules
 * when the route reads, which is after routing, authentication and the route's gates (HttpApi
 * decodes a payload inside the endpoint's middleware). Nothing is read before that.
 *
 * - Every read is limited to the route's size: a declared length beyond it is refused unread, a
 *   body that grows beyond it is cut off; both answer 413.
 * - Text is JSON on every route but raw markdown: HttpApi decodes JSON (and a body without a type)
 *   from it, a raw handler parses it whatever its type. It is scanned before it is parsed: nesting
 *   deeper than MAX_JSON_DEPTH, or a string PostgreSQL cannot store, is refused (422). The route's
 *   decoder is then the only one to parse it.
 * - A urlencoded form is split in linear time into at most MAX_FORM_FIELDS fields (413 beyond) and
 *   a multipart form is held to as many parts; the names and values of a buffered form are checked
 *   too (a streamed one's by the route that reads it).
 * - A raw stream (an upload) passes as the client sent it, whatever its type.
 *
 * A refusal names a field only when it is one of the route's own (as Forgejo's binding does), so no
 * answer repeats what the client sent.
 */
import { ByteSize, Effect, Inspectable, Stream } from "effect"
import type { FileSystem, Option, Path, Schema, Scope } from "effect"
import { HttpIncomingMessage, HttpServerRequest, Multipart, UrlParams } from "effect/http"
import type { Headers, HttpServerError } from "effect/http"
import type { Socket } from "effect/socket"
import { goFieldName } from "../BindingErrors.ts"
import { isStorableText } from "../TextInputGuard.ts"
import { BodyRefusal, invalidField, tooLarge } from "./BodyRefusal.ts"
import { formFields, MAX_FORM_FIELDS } from "./FormFields.ts"
import { jsonTextProblem } from "./JsonTextScan.ts"

export interface BodyRules {
  /** The most bytes the route reads. */
  readonly limit: number
  /** Whether text is JSON to check (every option route) or text taken as it is (raw markdown). */
  readonly textIsJson: boolean
  /** The route's top-level field names, lower-cased (Go matches JSON keys without case). */
  readonly fields: ReadonlySet<string>
}

const isBodyTooLarge = (error: HttpServerError.HttpServerError): boolean =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

const tooManyFields = new BodyRefusal({ status: 413, message: `the form has more than ${MAX_FORM_FIELDS} fields` })

const utf8 = new TextDecoder()

export class CheckedRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: typeof HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId
  readonly request: HttpServerRequest.HttpServerRequest
  readonly rules: BodyRules
  private cachedBytes: Effect.Effect<ArrayBuffer, HttpServerError.HttpServerError> | undefined
  private cachedText: Effect.Effect<string, HttpServerError.HttpServerError> | undefined
  private cachedForm: Effect.Effect<UrlParams.UrlParams, HttpServerError.HttpServerError> | undefined

  constructor(request: HttpServerRequest.HttpServerRequest, rules: BodyRules) {
    super()
    this[HttpServerRequest.TypeId] = HttpServerRequest.TypeId
    this[HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
    this.request = request
    this.rules = rules
  }

  /** A field's name as a refusal may say it: the route's own field, else none. */
  private fieldName(key: string | undefined): string {
    return key !== undefined && this.rules.fields.has(key.toLowerCase()) ? goFieldName(key) : ""
  }

  /** The limit applied to a read the platform does. */
  private limited<A, E, R>(read: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    const declared = Number(this.request.headers["content-length"] ?? "0")
    if (declared > this.rules.limit) return Effect.die(tooLarge(this.rules.limit))
    return Effect.provideService(read, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(this.rules.limit))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.HttpServerError> {
    this.cachedBytes ??= this.limited(this.request.arrayBuffer).pipe(
      Effect.catchIf(isBodyTooLarge, () => Effect.die(tooLarge(this.rules.limit))),
      Effect.cached,
      Effect.runSync
    )
    return this.cachedBytes
  }

  get text(): Effect.Effect<string, HttpServerError.HttpServerError> {
    this.cachedText ??= Effect.map(this.arrayBuffer, (bytes) => utf8.decode(bytes)).pipe(
      Effect.flatMap((text) => {
        // Whatever its type: a route that reads text as JSON (a raw handler) parses any body.
        if (!this.rules.textIsJson) return Effect.succeed(text)
        const problem = jsonTextProblem(text)
        if (problem === undefined) return Effect.succeed(text)
        return Effect.die(invalidField(problem._tag === "TooDeep" ? "" : this.fieldName(problem.topLevelKey)))
      }),
      Effect.cached,
      Effect.runSync
    )
    return this.cachedText
  }

  get json(): Effect.Effect<Schema.Json, HttpServerError.HttpServerError> {
    return Effect.flatMap(this.text, (text) => {
      try {
        return Effect.succeed(text === "" ? null : JSON.parse(text) as Schema.Json)
      } catch {
        return Effect.die(invalidField(""))
      }
    })
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.HttpServerError> {
    this.cachedForm ??= Effect.flatMap(this.arrayBuffer, (bytes) => {
      const fields = formFields(utf8.decode(bytes))
      if (fields === undefined) return Effect.die(tooManyFields)
      const unstorable = fields.find(([key, value]) => !isStorableText(key) || !isStorableText(value))
      if (unstorable !== undefined) return Effect.die(invalidField(this.fieldName(unstorable[0])))
      return Effect.succeed(UrlParams.make(fields))
    }).pipe(Effect.cached, Effect.runSync)
    return this.cachedForm
  }

  get multipart(): Effect.Effect<Multipart.Persisted, Multipart.MultipartError, Scope.Scope | FileSystem.FileSystem | Path.Path> {
    return this.limited(this.request.multipart).pipe(
      Effect.provideService(Multipart.MaxParts, MAX_FORM_FIELDS),
      Effect.catchIf(
        (error) => error.reason._tag === "TooManyParts",
        () => Effect.die(tooManyFields)
      ),
      Effect.catchIf(
        (error) => error.reason._tag.endsWith("TooLarge"),
        () => Effect.die(tooLarge(this.rules.limit))
      ),
      Effect.flatMap((form) => {
        for (const [key, value] of Object.entries(form)) {
          const items: ReadonlyArray<unknown> = typeof value === "string" ? [value] : value
          if (!isStorableText(key) || items.some((item) => typeof item === "string" && !isStorableText(item))) {
            return Effect.die(invalidField(this.fieldName(key)))
          }
        }
        return Effect.succeed(form)
      })
    )
  }

  /** Raw bytes, whatever the type (uploads): the route holds them to its own limit as it stores them. */
  get stream(): Stream.Stream<Uint8Array, HttpServerError.HttpServerError> {
    return this.request.stream
  }

  /**
   * A streamed form (uploads): its parts counted. The route checks the fields it keeps as it goes:
   * a refusal here could come after the file was stored.
   */
  get multipartStream(): Stream.Stream<Multipart.Part, Multipart.MultipartError> {
    return Stream.provideService(this.request.multipartStream, Multipart.MaxParts, MAX_FORM_FIELDS)
  }

  get source(): object {
    return this.request.source
  }
  get url(): string {
    return this.request.url
  }
  get originalUrl(): string {
    return this.request.originalUrl
  }
  get method(): string {
    return this.request.method
  }
  get cookies(): Readonly<Record<string, string>> {
    return this.request.cookies
  }
  get headers(): Headers.Headers {
    return this.request.headers
  }
  get remoteAddress(): Option.Option<string> {
    return this.request.remoteAddress
  }
  get peerAddress(): Option.Option<string> {
    return this.request.peerAddress
  }
  get protocol(): "http" | "https" | undefined {
    return this.request.protocol
  }
  get upgrade(): Effect.Effect<Socket.Socket, HttpServerError.HttpServerError> {
    return this.request.upgrade
  }
  upgradeWith(options: { readonly headers?: Headers.Input | undefined }): Effect.Effect<Socket.Socket, HttpServerError.HttpServerError> {
    return this.request.upgradeWith(options)
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]): HttpServerRequest.HttpServerRequest {
    return new CheckedRequest(this.request.modify(options), this.rules)
  }
  toJSON(): unknown {
    return this.request.toJSON()
  }
}
