/**
 * A JSON answer built once and sent again for every request that finds it kept (RepositoryAnswers,
 * UserAnswers): serialized once, its tag hashed once (ConditionalResponses tags each answer sent),
 * dated by the resource's `Last-Modified`.
 */
import { HttpServerResponse } from "effect/http"
import { keepTag } from "./EntityTag.ts"
import { withLastModified } from "./LastModified.ts"

const encoder = new TextEncoder()

/** `value` as a JSON answer last modified at `updatedAt` (unix seconds); `kept`: it will be sent again. */
export const jsonAnswer = (value: unknown, updatedAt: number, kept: boolean): HttpServerResponse.HttpServerResponse => {
  const bytes = encoder.encode(JSON.stringify(value))
  if (kept) keepTag(bytes)
  return withLastModified(updatedAt)(HttpServerResponse.uint8Array(bytes, { contentType: "application/json" }))
}
