/** Forgejo's User JSON (services/convert/user.go) and who sees which of its fields. */
import { Option, Schema } from "effect"
import type { User } from "@kiln/domain/user/User"
import { rfc3339, ZERO_TIME } from "./Time.ts"

export const UserJson = Schema.Struct({
  id: Schema.Number,
  login: Schema.String,
  login_name: Schema.String,
  source_id: Schema.Number,
  full_name: Schema.String,
  email: Schema.String,
  avatar_url: Schema.String,
  html_url: Schema.String,
  language: Schema.String,
  is_admin: Schema.Boolean,
  last_login: Schema.String,
  created: Schema.String,
  restricted: Schema.Boolean,
  active: Schema.Boolean,
  prohibit_login: Schema.Boolean,
  location: Schema.String,
  pronouns: Schema.String,
  website: Schema.String,
  description: Schema.String,
  visibility: Schema.String,
  followers_count: Schema.Number,
  following_count: Schema.Number,
  starred_repos_count: Schema.Number,
  /** Forgejo's `User.MarshalJSON` appends `login` again under this name, for older clients. */
  username: Schema.String
}).annotate({ identifier: "User" })
export type UserJson = typeof UserJson.Type

/** Who looks at a user: decides the privileged fields, the e-mail and the pronouns. */
export interface Viewer {
  readonly user: Option.Option<User>
}

export const anonymousViewer: Viewer = { user: Option.none() }

export interface SiteUrls {
  /** Ends with `/`. */
  readonly rootUrl: string
  /** The root URL's host name (SSH clone addresses), parsed once. */
  readonly hostname: string
  /** `noreply.<domain>`: the host of hidden e-mail addresses. */
  readonly noReplyDomain: string
  /** A repository's `ssh_url` from its escaped `owner/name`. */
  readonly sshCloneUrl: (path: string) => string
}

/** Where `ssh_url` points: KILN_SSH_USER, KILN_SSH_DOMAIN and KILN_SSH_EXTERNAL_PORT. */
export interface SshCloneAddress {
  readonly user: string
  readonly domain: string
  readonly externalPort: number
}

/**
 * Forgejo's ComposeSSHCloneURL: `user@domain:owner/repo.git` on port 22 (an IPv6 address in
 * brackets then takes the URL form), `ssh://user@domain:port/owner/repo.git` otherwise.
 */
export const sshCloneUrl = (ssh: SshCloneAddress, path: string): string => {
  const host = ssh.domain.includes(":") && !ssh.domain.startsWith("[") ? `[${ssh.domain}]` : ssh.domain
  if (ssh.externalPort !== 22) return `ssh://${ssh.user}@${host}:${ssh.externalPort}/${path}.git`
  if (host !== ssh.domain) return `ssh://${ssh.user}@${host}/${path}.git`
  return `${ssh.user}@${ssh.domain}:${path}.git`
}

export const siteUrls = (rootUrl: string, ssh?: SshCloneAddress): SiteUrls => {
  const { hostname } = new URL(rootUrl)
  const address = ssh ?? { user: "git", domain: hostname, externalPort: 22 }
  return { rootUrl, hostname, noReplyDomain: `noreply.${hostname}`, sshCloneUrl: (path) => sshCloneUrl(address, path) }
}

export const avatarUrl = (urls: SiteUrls): string => `${urls.rootUrl}assets/img/avatar_default.png`

export const htmlUrl = (urls: SiteUrls, name: string): string => `${urls.rootUrl}${encodeURIComponent(name)}`

const placeholderEmail = (user: User, urls: SiteUrls) => `${user.lowerName}@${urls.noReplyDomain}`

/**
 * `signed`: the viewer is signed in (for a nested repository owner: the viewer has any access).
 * `privileged`: the viewer is the user or a site admin; only then the account's private fields show.
 */
export const toUserJson = (
  user: User,
  urls: SiteUrls,
  access: { readonly signed: boolean; readonly privileged: boolean }
): UserJson => {
  const { signed, privileged } = access
  return {
    id: user.id,
    login: user.name,
    login_name: privileged ? user.loginName : "",
    source_id: privileged ? user.sourceId : 0,
    full_name: user.fullName,
    email: privileged || (signed && !user.keepEmailPrivate) ? user.email : placeholderEmail(user, urls),
    avatar_url: avatarUrl(urls),
    html_url: htmlUrl(urls, user.name),
    language: privileged ? user.language : "",
    is_admin: privileged ? user.isAdmin : false,
    last_login: privileged && user.lastLoginAt > 0 ? rfc3339(user.lastLoginAt) : privileged ? rfc3339(0) : ZERO_TIME,
    created: rfc3339(user.createdAt),
    restricted: user.restricted,
    active: privileged ? user.active : false,
    prohibit_login: privileged ? user.prohibitLogin : false,
    location: user.location,
    pronouns: !signed && user.keepPronounsPrivate ? "" : user.pronouns,
    website: user.website,
    description: user.description,
    visibility: user.visibility,
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: user.name
  }
}

/** The access a viewer has to a user's own fields. */
export const accessOf = (viewer: Viewer, user: User) => ({
  signed: Option.isSome(viewer.user),
  privileged: Option.match(viewer.user, { onNone: () => false, onSome: (v) => v.isAdmin || v.id === user.id })
})

export const userJsonFor = (viewer: Viewer, urls: SiteUrls) => (user: User): UserJson =>
  toUserJson(user, urls, accessOf(viewer, user))
