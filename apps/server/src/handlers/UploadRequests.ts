/**
 * The requests that upload files (release attachments, generic packages): their bodies are limited
 * by KILN_ATTACHMENT_MAX_SIZE instead of the API's body limit. A multipart body may carry a little
 * more than the file (part headers, the `name` field); the file itself is held to the exact limit
 * while it is stored.
 */
const assetUpload = /^\/api\/v1\/repos\/[^/]+\/[^/]+\/releases\/[^/]+\/assets\/?(?:\?|$)/
const packageUpload = /^\/api\/packages\/[^/]+\/generic\/[^/]+\/[^/]+\/[^/]+\/?(?:\?|$)/

export const isUploadRequest = (method: string, url: string): boolean =>
  (method === "POST" && assetUpload.test(url)) || (method === "PUT" && packageUpload.test(url))

/** Room for the multipart framing around a file of `maxSize` bytes. */
export const uploadBodyLimit = (maxSize: number): number => maxSize + 1024 * 1024
