/**
 * `Last-Modified` on the answers whose data has a time of its own: repositories (`updated_at`),
 * users (their last update) and releases (`created_at`, the only time Forgejo keeps for one). Set on
 * the response itself, where ConditionalResponses reads it for `If-Modified-Since`.
 */
import { HttpServerResponse } from "effect/http"
import { httpDate } from "./EntityTag.ts"

export const withLastModified = (unixSeconds: number) => (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, "last-modified", httpDate(unixSeconds))
