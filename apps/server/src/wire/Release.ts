/** Forgejo's Release JSON [services/convert/release.go, models/repo/release.go URLs, modules/structs/release.go]. */
import { Schema } from "effect"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import { namesAreUnique, type ReleaseDetails } from "@kiln/domain/release/Release"
import type { User } from "@kiln/domain/user/User"
import { AttachmentJson, attachmentUrl, goPathEscape, goPathEscapeSegments, toAttachmentJson } from "./Attachment.ts"
import { rfc3339 } from "./Time.ts"
import { type SiteUrls, toUserJson, UserJson } from "./User.ts"

const TagArchiveDownloadCountJson = Schema.Struct({
  zip: Schema.Number,
  tar_gz: Schema.Number
}).annotate({ identifier: "TagArchiveDownloadCount" })

export const ReleaseJson = Schema.Struct({
  id: Schema.Number,
  tag_name: Schema.String,
  target_commitish: Schema.String,
  name: Schema.String,
  body: Schema.String,
  url: Schema.String,
  html_url: Schema.String,
  tarball_url: Schema.String,
  zipball_url: Schema.String,
  hide_archive_links: Schema.Boolean,
  upload_url: Schema.String,
  draft: Schema.Boolean,
  prerelease: Schema.Boolean,
  created_at: Schema.String,
  published_at: Schema.String,
  author: UserJson,
  assets: Schema.Array(AttachmentJson),
  archive_download_count: TagArchiveDownloadCountJson
}).annotate({ identifier: "Release" })
export type ReleaseJson = typeof ReleaseJson.Type

/** Forgejo's ghost user: the publisher of a release whose account is gone. */
export const ghostUser: User = {
  id: -1, name: "Ghost", lowerName: "ghost", kind: "individual", fullName: "", email: "", keepEmailPrivate: false,
  loginName: "", sourceId: 0, isAdmin: false, restricted: false, active: false, prohibitLogin: false,
  mustChangePassword: false, visibility: "public", location: "", pronouns: "", keepPronounsPrivate: false,
  website: "", description: "", language: "", maxRepoCreation: -1, allowCreateOrganization: false,
  allowGitHook: false, allowImportLocal: false, repoAdminChangeTeamAccess: false, createdAt: 0, updatedAt: 0,
  lastLoginAt: 0
}

export const repositoryHtmlUrl = (urls: SiteUrls, owned: OwnedRepository): string =>
  `${urls.rootUrl}${encodeURIComponent(owned.owner.name)}/${encodeURIComponent(owned.repository.name)}`

const repositoryApiUrl = (urls: SiteUrls, owned: OwnedRepository): string =>
  `${urls.rootUrl}api/v1/repos/${encodeURIComponent(owned.owner.name)}/${encodeURIComponent(owned.repository.name)}`

/** The attachments of a release as its JSON (and the asset list) shows them. */
export const toAssetsJson = (details: ReleaseDetails, owned: OwnedRepository, urls: SiteUrls) => {
  const byName = namesAreUnique(details.attachments)
  const base = `${repositoryHtmlUrl(urls, owned)}/releases/download/${goPathEscape(details.release.tagName)}/`
  return details.attachments.map((attachment) =>
    toAttachmentJson(attachment, byName ? `${base}${goPathEscape(attachment.name)}` : attachmentUrl(urls, attachment.uuid)))
}

export const toReleaseJson = (details: ReleaseDetails, owned: OwnedRepository, urls: SiteUrls): ReleaseJson => {
  const { release } = details
  const htmlUrl = repositoryHtmlUrl(urls, owned)
  const apiUrl = `${repositoryApiUrl(urls, owned)}/releases/${release.id}`
  const tag = goPathEscapeSegments(release.tagName)
  return {
    id: release.id,
    tag_name: release.tagName,
    target_commitish: release.target,
    name: release.title,
    body: release.note,
    url: apiUrl,
    html_url: `${htmlUrl}/releases/tag/${tag}`,
    tarball_url: `${htmlUrl}/archive/${tag}.tar.gz`,
    zipball_url: `${htmlUrl}/archive/${tag}.zip`,
    hide_archive_links: release.hideArchiveLinks,
    upload_url: `${apiUrl}/assets`,
    draft: release.isDraft,
    prerelease: release.isPrerelease,
    created_at: rfc3339(release.createdAt),
    published_at: rfc3339(release.createdAt),
    // Forgejo converts the publisher without a viewer: what an anonymous caller sees.
    author: toUserJson(details.publisher ?? ghostUser, urls, { signed: false, privileged: false }),
    assets: toAssetsJson(details, owned, urls),
    archive_download_count: { zip: 0, tar_gz: 0 }
  }
}
