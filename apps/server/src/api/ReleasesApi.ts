/**
 * Releases and release attachments (api-facts §8.5) [routers/api/v1/repo/release.go,
 * release_attachment.go], with Forgejo's operation ids. Uploads are read as streams by the handler
 * (multipart field `attachment`, or the raw body), so the payloads below only describe them.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiPayloadTooLarge,
  ApiQuotaExceeded,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { RequestBody } from "../http/bodies/RequestBodies.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { AttachmentJson, EditAttachmentOptions } from "../wire/Attachment.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { ReleaseJson } from "../wire/Release.ts"
import { API_PREFIX } from "./Paths.ts"
import { IntQuery, PagingQuery } from "./QueryParams.ts"

export const CreateReleaseOption = optionPayload("CreateReleaseOption", {
  tag_name: { kind: "string", required: true },
  target_commitish: { kind: "string" },
  name: { kind: "string" },
  body: { kind: "string" },
  draft: { kind: "boolean" },
  prerelease: { kind: "boolean" },
  hide_archive_links: { kind: "boolean" }
})

export const EditReleaseOption = optionPayload("EditReleaseOption", {
  tag_name: { kind: "string" },
  target_commitish: { kind: "string" },
  name: { kind: "string" },
  body: { kind: "string" },
  draft: { kind: "boolean" },
  prerelease: { kind: "boolean" },
  hide_archive_links: { kind: "boolean" }
})

const repo = { owner: Schema.String, repo: Schema.String }
const release = { ...repo, id: IntQuery.annotate({ description: "id of the release" }) }
const asset = { ...release, attachment_id: IntQuery.annotate({ description: "id of the attachment" }) }
const Errors = [
  ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiInternalError,
  // An old name of a renamed repository.
  ApiMovedPermanentlyResponse
] as const

/** What an upload may carry; read by the handler as streams, never buffered. */
const UploadForm = Schema.Struct({
  attachment: Schema.optionalKey(Schema.String.annotate({ format: "binary", description: "attachment to upload" })),
  external_url: Schema.optionalKey(Schema.String.annotate({ description: "url to external asset" }))
}).pipe(HttpApiSchema.asMultipartStream())

export class ReleasesApi extends HttpApiGroup.make("release").add(
  HttpApiEndpoint.get("repoListReleases", "/repos/:owner/:repo/releases", {
    params: repo,
    query: {
      draft: Schema.optional(Schema.String.annotate({ description: "filter (exclude / include) drafts" })),
      "pre-release": Schema.optional(Schema.String.annotate({ description: "filter (exclude / include) pre-releases" })),
      q: Schema.optional(Schema.String.annotate({ description: "Search string" })),
      ...PagingQuery
    },
    success: Schema.Array(ReleaseJson),
    error: Errors
  }).annotate(OpenApi.Summary, "List a repo's releases"),
  HttpApiEndpoint.post("repoCreateRelease", "/repos/:owner/:repo/releases", {
    params: repo,
    payload: CreateReleaseOption,
    success: ReleaseJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiConflict]
  }).annotate(OpenApi.Summary, "Create a release"),
  HttpApiEndpoint.get("repoGetReleaseByTag", "/repos/:owner/:repo/releases/tags/:tag", {
    params: { ...repo, tag: Schema.String },
    success: ReleaseJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a release by tag name"),
  HttpApiEndpoint.get("repoGetRelease", "/repos/:owner/:repo/releases/:id", {
    params: release,
    success: ReleaseJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a release"),
  HttpApiEndpoint.patch("repoEditRelease", "/repos/:owner/:repo/releases/:id", {
    params: release,
    payload: EditReleaseOption,
    success: ReleaseJson,
    error: [...Errors, ApiConflict]
  }).annotate(OpenApi.Summary, "Update a release"),
  HttpApiEndpoint.delete("repoDeleteRelease", "/repos/:owner/:repo/releases/:id", {
    params: release,
    success: HttpApiSchema.NoContent,
    error: Errors
  }).annotate(OpenApi.Summary, "Delete a release"),
  HttpApiEndpoint.get("repoListReleaseAttachments", "/repos/:owner/:repo/releases/:id/assets", {
    params: release,
    success: Schema.Array(AttachmentJson),
    error: Errors
  }).annotate(OpenApi.Summary, "List release's attachments"),
  HttpApiEndpoint.post("repoCreateReleaseAttachment", "/repos/:owner/:repo/releases/:id/assets", {
    params: release,
    query: { name: Schema.optional(Schema.String.annotate({ description: "name of the attachment" })) },
    payload: [UploadForm, HttpApiSchema.StreamUint8Array()],
    success: AttachmentJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiBadRequest, ApiPayloadTooLarge, ApiQuotaExceeded]
  }).annotate(RequestBody, "upload").annotate(OpenApi.Summary, "Create a release attachment"),
  HttpApiEndpoint.get("repoGetReleaseAttachment", "/repos/:owner/:repo/releases/:id/assets/:attachment_id", {
    params: asset,
    success: AttachmentJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a release attachment"),
  HttpApiEndpoint.patch("repoEditReleaseAttachment", "/repos/:owner/:repo/releases/:id/assets/:attachment_id", {
    params: asset,
    payload: EditAttachmentOptions,
    // Forgejo answers an edit with 201.
    success: AttachmentJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiBadRequest]
  }).annotate(OpenApi.Summary, "Edit a release attachment"),
  HttpApiEndpoint.delete("repoDeleteReleaseAttachment", "/repos/:owner/:repo/releases/:id/assets/:attachment_id", {
    params: asset,
    success: HttpApiSchema.NoContent,
    error: Errors
  }).annotate(OpenApi.Summary, "Delete a release attachment")
).annotate(ScopeCategories, ["repository"]).annotate(OpenApi.Title, "repository").prefix(API_PREFIX) {}
