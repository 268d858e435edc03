/** Forgejo's Package JSON [services/convert/package.go, models/packages/descriptor.go]. */
import { Schema } from "effect"
import type { PackageVersion } from "@kiln/domain/package/Package"
import { goPathEscape } from "./Attachment.ts"
import { ghostUser } from "./Release.ts"
import { rfc3339 } from "./Time.ts"
import { htmlUrl, type SiteUrls, UserJson } from "./User.ts"

export const PackageJson = Schema.Struct({
  id: Schema.Number,
  owner: UserJson,
  /** The linked repository; Kiln's generic uploads link none. */
  repository: Schema.Null,
  creator: UserJson,
  type: Schema.String,
  name: Schema.String,
  version: Schema.String,
  html_url: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "Package" })
export type PackageJson = typeof PackageJson.Type

/** `<owner html_url>/-/packages/<type>/<lower name>/<lower version>`. */
export const packageVersionHtmlUrl = (urls: SiteUrls, version: PackageVersion): string =>
  `${htmlUrl(urls, version.owner.name)}/-/packages/${version.type}/${goPathEscape(version.lowerName)}/${goPathEscape(version.lowerVersion)}`

export const toPackageJson = (
  version: PackageVersion,
  urls: SiteUrls,
  renderUser: (user: PackageVersion["owner"]) => UserJson
): PackageJson => ({
  id: version.id,
  owner: renderUser(version.owner),
  repository: null,
  creator: renderUser(version.creator ?? ghostUser),
  type: version.type,
  name: version.name,
  version: version.version,
  html_url: packageVersionHtmlUrl(urls, version),
  created_at: rfc3339(version.createdAt)
})
