/**
 * The 200 answer of a hot read route, serialized directly. Returning the value instead would make
 * HttpApi walk it through the endpoint's success Schema once more; for a schema whose encoded form
 * is its type (plain JSON: strings, numbers, booleans, null, arrays and structs of them) that walk
 * changes nothing and only re-checks what the compiler checked, yet for a page of 50 repositories
 * it costs more than the rest of the handler. The schema still describes the route in the API
 * description, and asking for it here keeps the value's type tied to it.
 */
import type { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { type SerializedJson, serialize } from "../wire/SerializedJson.ts"

export const plainJsonResponse = <A>(_schema: Schema.Codec<A, A>, value: A): HttpServerResponse.HttpServerResponse =>
  serializedJsonResponse(_schema, serialize(value))

/** The same for a value serialized already (a page of texts kept per item). */
export const serializedJsonResponse = <A>(_schema: Schema.Codec<A, A>, json: SerializedJson<A>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(json, { contentType: "application/json" })
