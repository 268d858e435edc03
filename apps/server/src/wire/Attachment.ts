/** Forgejo's Attachment JSON [services/convert/attachment.go, modules/structs/attachment.go]. */
import { Schema } from "effect"
import type { Attachment } from "@kiln/domain/release/Release"
import { rfc3339 } from "./Time.ts"
import type { SiteUrls } from "./User.ts"

// Go's url.PathEscape (one segment, "/" escaped) and Forgejo's util.PathEscapeSegments ("/" kept),
// which Forgejo builds its URLs with. encodeURIComponent leaves !'()* alone and escapes $&+,:;=@;
// Go's path escaping does the reverse.
const goKeeps: Readonly<Record<string, string>> = {
  "%24": "$", "%26": "&", "%2B": "+", "%2C": ",", "%3A": ":", "%3B": ";", "%3D": "=", "%40": "@"
}

export const goPathEscape = (segment: string): string =>
  encodeURIComponent(segment)
    .replace(/%(?:24|26|2B|2C|3A|3B|3D|40)/g, (escaped) => goKeeps[escaped] ?? escaped)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)

export const goPathEscapeSegments = (path: string): string => path.split("/").map(goPathEscape).join("/")

export const AttachmentJson = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  size: Schema.Number,
  download_count: Schema.Number,
  created_at: Schema.String,
  uuid: Schema.String,
  browser_download_url: Schema.String,
  type: Schema.Literals(["attachment", "external"])
}).annotate({ identifier: "Attachment" })
export type AttachmentJson = typeof AttachmentJson.Type

export const EditAttachmentOptions = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  browser_download_url: Schema.optionalKey(Schema.String.annotate({
    description: "(Can only be set if existing attachment is of external type)"
  }))
}).annotate({ identifier: "EditAttachmentOptions" })

/** Where a stored attachment downloads without its release context: `<ROOT_URL>attachments/<uuid>`. */
export const attachmentUrl = (urls: SiteUrls, uuid: string): string => `${urls.rootUrl}attachments/${goPathEscape(uuid)}`

/**
 * `downloadUrl` is the release-context URL when the release's attachment names are unique
 * (`<repo>/releases/download/<tag>/<name>`), else the UUID URL; external attachments link out.
 */
export const toAttachmentJson = (attachment: Attachment, downloadUrl: string): AttachmentJson => ({
  id: attachment.id,
  name: attachment.name,
  size: attachment.size,
  download_count: attachment.downloadCount,
  created_at: rfc3339(attachment.createdAt),
  uuid: attachment.uuid,
  browser_download_url: attachment.externalUrl !== "" ? attachment.externalUrl : downloadUrl,
  type: attachment.externalUrl !== "" ? "external" : "attachment"
})
