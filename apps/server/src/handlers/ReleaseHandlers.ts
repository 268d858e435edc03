/** `/repos/{owner}/{repo}/releases*` (api-facts §8.5): releases and their attachments. */
import { Effect, Option, Stream } from "effect"
import type { HttpServerRequest, Multipart } from "effect/http"
import type { AlreadyExists, Conflict, Forbidden, Invalid, NotFound } from "@kiln/domain/errors"
import type { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import type { BlobStorageFailure, BlobTooLarge } from "@kiln/domain/release/BlobStorage"
import type { Attachment } from "@kiln/domain/release/Release"
import { canWriteReleases, Releases, type UnknownTarget } from "@kiln/domain/release/Releases"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import type { User } from "@kiln/domain/user/User"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import type { CreateReleaseOption, EditReleaseOption } from "../api/ReleasesApi.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { withLastModified } from "../http/conditional/LastModified.ts"
import { formInt, pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { requireWithinQuota } from "../http/QuotaGate.ts"
import { isStorableText } from "../http/TextInputGuard.ts"
import { plainJsonResponse } from "../http/PlainJsonResponse.ts"
import { attachmentUrl, toAttachmentJson } from "../wire/Attachment.ts"
import { ReleaseJson, toAssetsJson, toReleaseJson } from "../wire/Release.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

type ReleaseError =
  | Forbidden
  | NotFound
  | Invalid
  | Conflict
  | AlreadyExists
  | UnknownTarget
  | GitStorageFailure
  | BlobStorageFailure
  | BlobTooLarge

/** Go's `strconv.ParseBool` as `ctx.FormOptionalBool` reads it: anything else is "not given". */
const optionalBool = (text: string | undefined): boolean | undefined => {
  if (text === undefined) return undefined
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false
  return undefined
}

const MISSING_NAME_MESSAGE = "Missing 'name' parameter"
const MISSING_ATTACHMENT_MESSAGE = "One of 'attachment' or 'external_url' is required"
const EXCLUSIVE_MESSAGE = "'attachment' and 'external_url' are mutually exclusive"

export const ReleaseHandlers = HandlerGroup.group(Api, "release", [ApiErrors, KilnConfig, QuotaEnforcement], Effect.fnUntraced(function*(handlers) {
  const { errors, config, urls, lookup } = yield* makeRepoRequests
  const changes = yield* makeChangeEvents
  const releases = yield* Releases

  /**
   * Statuses: Forbidden 403, NotFound 404 (the generic body; an unknown target: the plain one with
   * its text), Invalid 422 (400 on attachment routes), Conflict and AlreadyExists 409, BlobTooLarge
   * 413, disk failures 500.
   */
  const failure = (invalidStatus: 400 | 422) => (error: ReleaseError) => {
    switch (error._tag) {
      case "Forbidden":
        return errors.forbidden(error.message)
      case "NotFound":
        return errors.notFound()
      case "UnknownTarget":
        return errors.notFoundPlain(error.message)
      case "Invalid":
        // A binding rule's failure (it names its field) is 422 on every route, as in Forgejo.
        return invalidStatus === 400 && error.field === undefined ? errors.badRequest(error.message) : errors.validation(error.message)
      case "Conflict":
      case "AlreadyExists":
        return errors.conflict(error.message)
      case "BlobTooLarge":
        return errors.payloadTooLarge(`attachment is larger than ${error.limit} bytes`)
      case "GitStorageFailure":
      case "BlobStorageFailure":
        return errors.internal(error.message)
    }
  }

  /** Lookup (404 first, even for anonymous callers), then `reqToken`. */
  const lookupSigned = (params: { readonly owner: string; readonly repo: string }) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      const principal = yield* requireSignedIn
      return { target, doer: principal.user }
    })

  /** A single attachment's JSON names it by UUID (Forgejo loads no release context for it). */
  const assetJson = (attachment: Attachment) => toAttachmentJson(attachment, attachmentUrl(urls, attachment.uuid))

  const releaseInput = (payload: (typeof EditReleaseOption)[0]["Type"] | (typeof CreateReleaseOption)[0]["Type"]) => ({
    target: payload.target_commitish,
    title: payload.name,
    note: payload.body,
    isDraft: payload.draft,
    isPrerelease: payload.prerelease,
    hideArchiveLinks: payload.hide_archive_links
  })

  /**
   * An upload: the multipart part `attachment` (named by `name`, a `name` field before it, or its file
   * name) or the raw body (named by `name`), streamed to the attachment store; or, in a form, an
   * `external_url`. Parts after the file are read and dropped.
   */
  const upload = (
    doer: User,
    target: AccessibleRepository,
    releaseId: number,
    request: HttpServerRequest.HttpServerRequest,
    queryName: string
  ) =>
    Effect.gen(function*() {
      const url = new URL(request.url, "http://kiln").searchParams
      const queryUrl = url.get("external_url") ?? ""
      const contentType = (request.headers["content-type"] ?? "").toLowerCase()
      const store = (name: string, content: Stream.Stream<Uint8Array, unknown>) =>
        name === ""
          ? Effect.fail(errors.badRequest(MISSING_NAME_MESSAGE))
          // A form's name or file name, checked before the file is received: PostgreSQL's text cannot hold it.
          : !isStorableText(name)
          ? Effect.fail(errors.validation("[Name]: Invalid"))
          : releases.upload(doer, target, releaseId, name, content, config.attachmentMaxSize).pipe(Effect.mapError((error) =>
            typeof error === "object" && error !== null && "_tag" in error && isReleaseError(error)
              ? failure(400)(error)
              : bodyFailure(error)))
      if (!contentType.startsWith("multipart/form-data")) {
        // Go's request always has a body: a non-form request is an upload.
        if (queryUrl !== "") return yield* errors.badRequest(EXCLUSIVE_MESSAGE)
        return yield* store(queryName, request.stream)
      }
      const fields = new Map<string, string>()
      let stored: Option.Option<Attachment> = Option.none()
      yield* Stream.runForEach(request.multipartStream, (part: Multipart.Part) =>
        Effect.gen(function*() {
          if (part._tag === "Field") {
            fields.set(part.key, part.value)
            return
          }
          if (part.key !== "attachment" || Option.isSome(stored)) return yield* Stream.runDrain(part.content)
          if (queryUrl !== "" || (fields.get("external_url") ?? "") !== "") return yield* errors.badRequest(EXCLUSIVE_MESSAGE)
          const name = queryName !== "" ? queryName : fields.get("name") ?? part.name
          stored = Option.some(yield* store(name, part.content))
        })).pipe(Effect.catchTag("MultipartError", (error) => Effect.fail(bodyFailure(error))))
      if (Option.isSome(stored)) return stored.value
      const externalUrl = queryUrl !== "" ? queryUrl : fields.get("external_url") ?? ""
      if (externalUrl === "") return yield* errors.badRequest(MISSING_ATTACHMENT_MESSAGE)
      const name = queryName !== "" ? queryName : fields.get("name") ?? externalName(externalUrl)
      if (!isStorableText(name) || !isStorableText(externalUrl)) return yield* errors.validation("[Name]: Invalid")
      return yield* releases.addExternal(doer, target, releaseId, name, externalUrl).pipe(Effect.mapError(failure(400)))
    })

  /** A body that could not be read: too large (413), cut off or malformed (400). */
  const bodyFailure = (error: unknown) => {
    const reason = reasonOf(error)
    return reason.endsWith("TooLarge") || reason === "TooManyParts"
      ? errors.payloadTooLarge(`attachment is larger than ${config.attachmentMaxSize} bytes`)
      : errors.badRequest("the request body could not be read")
  }

  return handlers
    .handle("repoListReleases", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const page = pageFromQuery(query)
        const result = yield* releases.list(target, {
          isDraft: optionalBool(query.draft),
          isPrerelease: optionalBool(query["pre-release"]),
          keyword: (query.q ?? "").trim(),
          page
        }).pipe(Effect.mapError(failure(422)))
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map((details) => toReleaseJson(details, target, urls))
      }))
    .handle("repoCreateRelease", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const tagExisted = yield* changes.tagExists(target, payload.tag_name)
        const created = yield* changes.run(
          releases.create(doer, target, { tagName: payload.tag_name, ...releaseInput(payload) }).pipe(Effect.mapError(failure(422))),
          (details) => changes.releasePublished(target, doer, details, !tagExisted)
        )
        return toReleaseJson(created, target, urls)
      }))
    .handle("repoGetReleaseByTag", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const found = yield* releases.getByTag(target, params.tag).pipe(Effect.mapError(failure(422)))
        return withLastModified(found.release.createdAt)(plainJsonResponse(ReleaseJson, toReleaseJson(found, target, urls)))
      }))
    .handle("repoGetRelease", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const found = yield* releases.get(target, formInt(params.id)).pipe(Effect.mapError(failure(422)))
        return withLastModified(found.release.createdAt)(plainJsonResponse(ReleaseJson, toReleaseJson(found, target, urls)))
      }))
    .handle("repoEditRelease", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const input = { tagName: payload.tag_name, ...releaseInput(payload) }
        const before = yield* Effect.option(releases.get(target, formInt(params.id)))
        const wasDraft = Option.isSome(before) && before.value.release.isDraft
        const edited = yield* changes.run(
          releases.edit(doer, target, formInt(params.id), input).pipe(Effect.mapError(failure(422))),
          (details) => changes.release(target, doer, details, wasDraft ? "published" : "updated")
        )
        return toReleaseJson(edited, target, urls)
      }))
    .handle("repoDeleteRelease", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const before = yield* Effect.option(releases.get(target, formInt(params.id)))
        yield* changes.run(
          releases.remove(doer, target, formInt(params.id)).pipe(Effect.mapError(failure(422))),
          () => Option.isSome(before) ? changes.release(target, doer, before.value, "deleted") : Effect.succeed({ source: target, events: [] })
        )
      }))
    .handle("repoListReleaseAttachments", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const details = yield* releases.attachments(target, formInt(params.id)).pipe(Effect.mapError(failure(400)))
        yield* setPagingHeaders({ total: details.attachments.length, page: "all" })
        return toAssetsJson(details, target, urls)
      }))
    .handleRaw("repoCreateReleaseAttachment", ({ params, query, request }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        // After the write check (Forgejo's reqRepoWriter, then EnforceQuotaAPI), before the body is read.
        if (canWriteReleases(target)) yield* requireWithinQuota(target.owner, "size:assets:attachments:releases")
        const attachment = yield* upload(doer, target, formInt(params.id), request, query.name ?? "")
        return assetJson(attachment)
      }))
    .handle("repoGetReleaseAttachment", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const attachment = yield* releases.attachment(target, formInt(params.id), formInt(params.attachment_id)).pipe(
          Effect.mapError(failure(400))
        )
        return assetJson(attachment)
      }))
    .handle("repoEditReleaseAttachment", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const edited = yield* releases.editAttachment(doer, target, formInt(params.id), formInt(params.attachment_id), {
          name: payload.name,
          downloadUrl: payload.browser_download_url
        }).pipe(Effect.mapError(failure(400)))
        return assetJson(edited)
      }))
    .handle("repoDeleteReleaseAttachment", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        yield* releases.removeAttachment(doer, target, formInt(params.id), formInt(params.attachment_id)).pipe(
          Effect.mapError(failure(400))
        )
      }))
}))

const releaseErrorTags = new Set([
  "Forbidden", "NotFound", "Invalid", "Conflict", "AlreadyExists", "UnknownTarget", "GitStorageFailure",
  "BlobStorageFailure", "BlobTooLarge"
])

const isReleaseError = (error: { readonly _tag: unknown }): error is ReleaseError =>
  typeof error._tag === "string" && releaseErrorTags.has(error._tag)

/** The `reason._tag` of a multipart or request error ("" for anything else). */
const reasonOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null || !("reason" in error)) return ""
  const { reason } = error
  return typeof reason === "object" && reason !== null && "_tag" in reason && typeof reason._tag === "string" ? reason._tag : ""
}

/** Forgejo names a link attachment after the URL's last path segment, or its host. */
const externalName = (url: string): string => {
  try {
    const parsed = new URL(url)
    const last = parsed.pathname.split("/").filter((segment) => segment !== "").at(-1)
    return last === undefined ? parsed.host : decodeURIComponent(last)
  } catch {
    return url
  }
}
