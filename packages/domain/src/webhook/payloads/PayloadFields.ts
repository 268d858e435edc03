/** Reading fields of a stored Forgejo payload (decoded JSON) the way Go's zero values would: "" and 0 for missing ones. */
export const field = (value: unknown, ...path: ReadonlyArray<string | number>): unknown => {
  let current = value
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<string | number, unknown>)[key]
  }
  return current
}

export const text = (value: unknown, ...path: ReadonlyArray<string | number>): string => {
  const found = field(value, ...path)
  return typeof found === "string" ? found : ""
}

export const count = (value: unknown, ...path: ReadonlyArray<string | number>): number => {
  const found = field(value, ...path)
  return typeof found === "number" ? found : 0
}

export const list = (value: unknown, ...path: ReadonlyArray<string | number>): ReadonlyArray<unknown> => {
  const found = field(value, ...path)
  return Array.isArray(found) ? found : []
}

/** Go's `git.RefName(ref).ShortName()`. */
export const shortRefName = (ref: string): string => {
  for (const prefix of ["refs/heads/", "refs/tags/", "refs/remotes/"]) {
    if (ref.startsWith(prefix)) return ref.slice(prefix.length)
  }
  return ref.startsWith("refs/") ? ref.slice("refs/".length) : ref
}

const pathKept: Readonly<Record<string, string>> = { "%24": "$", "%26": "&", "%2B": "+", "%3A": ":", "%3D": "=", "%40": "@" }

/** Go's `url.PathEscape`: what a path segment may hold stays (`$&+:=@` too), the rest is %XX. */
const pathEscape = (segment: string): string =>
  encodeURIComponent(segment)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%(24|26|2B|3A|3D|40)/g, (escaped) => pathKept[escaped] ?? escaped)

/** Forgejo's `util.PathEscapeSegments`. */
export const pathEscapeSegments = (path: string): string => path.split("/").map(pathEscape).join("/")

/** Forgejo's `git.RefURL`: the web address of a ref. */
export const refUrl = (repoUrl: string, ref: string): string => {
  const name = pathEscapeSegments(shortRefName(ref))
  if (ref.startsWith("refs/heads/")) return `${repoUrl}/src/branch/${name}`
  if (ref.startsWith("refs/tags/")) return `${repoUrl}/src/tag/${name}`
  if (!/^[0-9a-f]{4,64}$/.test(ref)) return `${repoUrl}/src/branch/${name}`
  return `${repoUrl}/src/commit/${name}`
}

/** getReleasePayloadInfo's text (without the sender). */
export const releaseText = (payload: unknown, link: (url: string, label: string) => string): string => {
  const tag = text(payload, "release", "tag_name")
  const refLink = link(`${text(payload, "repository", "html_url")}/releases/tag/${pathEscapeSegments(tag)}`, tag)
  const verb = { published: "created", updated: "updated", deleted: "deleted" }[text(payload, "action")] ?? ""
  return verb === "" ? "" : `[${text(payload, "repository", "full_name")}] Release ${verb}: ${refLink}`
}

export const greenColor = 0x1ac600
export const yellowColor = 0xffd930
export const redColor = 0xff3232

/** The color of a release action (getReleasePayloadInfo). */
export const releaseColor = (payload: unknown): number =>
  ({ published: greenColor, updated: yellowColor, deleted: redColor }[text(payload, "action")] ?? 0)
