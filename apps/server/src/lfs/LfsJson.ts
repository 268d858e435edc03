/**
 * The LFS API's messages as Forgejo writes them (modules/lfs/transferadapter.go, structs/repo_lfs.go,
 * services/convert): every JSON answer has the type `application/vnd.git-lfs+json`, errors are
 * `{"message"}`, locks are `{"id","path","locked_at","owner":{"name"}}` with a string id.
 */
import { HttpServerResponse } from "effect/http"
import type { LfsLock } from "@kiln/domain/lfs/LfsLock"
import type { BatchItem } from "@kiln/domain/lfs/LfsObjects"

export const LFS_MEDIA_TYPE = "application/vnd.git-lfs+json"

/** What a client's `Accept` must start with (Forgejo's CheckAcceptMediaType: 415 otherwise). */
export const acceptsLfs = (accept: string | undefined): boolean =>
  (accept ?? "").split(";")[0]?.trim().toLowerCase() === LFS_MEDIA_TYPE

export const lfsJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: LFS_MEDIA_TYPE, headers })

/** Forgejo's writeStatusMessage. */
export const lfsMessage = (status: number, message: string, headers: Record<string, string> = {}) =>
  lfsJson(status, { message }, headers)

const statusTexts: Readonly<Record<number, string>> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  413: "Request Entity Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity"
}

/** Forgejo's writeStatus: the status's own text as the message. */
export const lfsStatus = (status: number, headers: Record<string, string> = {}) =>
  lfsMessage(status, statusTexts[status] ?? "Error", headers)

/** Go's time.Time in JSON (RFC 3339, whole seconds, UTC). */
const rfc3339 = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

export const lockJson = (lock: LfsLock) => ({
  id: String(lock.id),
  path: lock.path,
  locked_at: rfc3339(lock.createdAt),
  owner: { name: lock.owner.name }
})

export interface ActionLinks {
  /** `…/{owner}/{repo}.git/info/lfs` of the repository's current name. */
  readonly base: string
  /** The request's `Authorization`, echoed for the transfers (Forgejo). */
  readonly authorization: string | undefined
}

/** One object of a batch answer: its actions, or its error, inside the 200. */
export const batchObjectJson = (item: BatchItem, links: ActionLinks) => {
  const pointer = { oid: item.pointer.oid, size: item.pointer.size }
  const header: Record<string, string> = links.authorization === undefined ? {} : { Authorization: links.authorization }
  switch (item._tag) {
    case "Failed":
      return { ...pointer, error: { code: item.code, message: item.message } }
    case "Present":
      return pointer
    case "Download":
      return { ...pointer, actions: { download: { href: `${links.base}/objects/${item.pointer.oid}`, header } } }
    case "Upload":
      return {
        ...pointer,
        actions: {
          upload: { href: `${links.base}/objects/${item.pointer.oid}/${item.pointer.size}`, header },
          // Forgejo adds Accept to work around git-lfs#3662.
          verify: { href: `${links.base}/verify`, header: { ...header, Accept: LFS_MEDIA_TYPE } }
        }
      }
  }
}
