/**
 * Spec 4.4 `repoGetArchive` and Forgejo's shortcuts (api-facts §4.9): the tail of the path is
 * `<ref>.<zip|tar.gz|bundle>` (or just `<ref>` after `zipball/`, `tarball/`, `bundle/`), and the
 * ref may contain `/`. The body is the archive bytes, with Range and conditional GET support.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiServiceUnavailable,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { API_PREFIX } from "./Paths.ts"

const tailPath = {
  owner: Schema.String,
  repo: Schema.String,
  "*": Schema.String.annotate({ description: "the git reference and archive extension, e.g. `main.zip`" })
}
const Errors = [
  ApiBadRequest, ApiUnauthorized, ApiForbidden, ApiNotFound, ApiInternalError,
  // The archive cache cannot hold the archive: larger than the whole cache (422), or full for now (503).
  ApiValidationFailed, ApiServiceUnavailable,
  // An old name of a renamed repository.
  ApiMovedPermanentlyResponse
] as const
const ArchiveBody = HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream" })

const shortcut = <const Identifier extends string, const Segment extends string>(identifier: Identifier, segment: Segment, format: string) =>
  HttpApiEndpoint.get(identifier, `/repos/:owner/:repo/${segment}/*`, {
    params: tailPath,
    success: ArchiveBody,
    error: Errors
  }).annotate(OpenApi.Summary, `Get an archive of a repository as ${format}`)

export class ArchiveApi extends HttpApiGroup.make("repositoryArchive").add(
  HttpApiEndpoint.get("repoGetArchive", "/repos/:owner/:repo/archive/*", {
    params: tailPath,
    success: ArchiveBody,
    error: Errors
  }).annotate(OpenApi.Summary, "Get an archive of a repository"),
  shortcut("repoGetZipball", "zipball", "zip"),
  shortcut("repoGetTarball", "tarball", "tar.gz"),
  shortcut("repoGetBundle", "bundle", "git bundle")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
