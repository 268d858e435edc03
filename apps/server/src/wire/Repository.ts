/**
 * Forgejo's Repository JSON (services/convert/repository.go, keys in modules/structs/repo.go
 * order), with `permissions` for the caller and the owner nested as a User.
 */
import { Schema } from "effect"
import type { AccessMode } from "@kiln/domain/org/AccessMode"
import { atLeast } from "@kiln/domain/org/AccessMode"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { hasUnit } from "@kiln/domain/repo/Repository"
import { rfc3339, ZERO_TIME } from "./Time.ts"
import type { SerializedJson } from "./SerializedJson.ts"
import { type SiteUrls, toUserJson, UserJson } from "./User.ts"

const PermissionJson = Schema.Struct({ admin: Schema.Boolean, push: Schema.Boolean, pull: Schema.Boolean })
  .annotate({ identifier: "Permission" })

const InternalTrackerJson = Schema.Struct({
  enable_time_tracker: Schema.Boolean,
  allow_only_contributors_to_track_time: Schema.Boolean,
  enable_issue_dependencies: Schema.Boolean
}).annotate({ identifier: "InternalTracker" })

const ExternalTrackerJson = Schema.Struct({
  external_tracker_url: Schema.String,
  external_tracker_format: Schema.String,
  external_tracker_style: Schema.String,
  external_tracker_regexp_pattern: Schema.String
}).annotate({ identifier: "ExternalTracker" })

const ExternalWikiJson = Schema.Struct({ external_wiki_url: Schema.String }).annotate({ identifier: "ExternalWiki" })

const fields = {
  id: Schema.Number,
  owner: UserJson,
  name: Schema.String,
  full_name: Schema.String,
  description: Schema.String,
  empty: Schema.Boolean,
  private: Schema.Boolean,
  fork: Schema.Boolean,
  template: Schema.Boolean,
  /** Forks carry their base repository here (see RepositoryJson); the base's own parent is null. */
  parent: Schema.Null,
  mirror: Schema.Boolean,
  size: Schema.Number,
  language: Schema.String,
  languages_url: Schema.String,
  html_url: Schema.String,
  url: Schema.String,
  link: Schema.String,
  ssh_url: Schema.String,
  clone_url: Schema.String,
  original_url: Schema.String,
  website: Schema.String,
  stars_count: Schema.Number,
  forks_count: Schema.Number,
  watchers_count: Schema.Number,
  open_issues_count: Schema.Number,
  open_pr_counter: Schema.Number,
  release_counter: Schema.Number,
  default_branch: Schema.String,
  archived: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
  archived_at: Schema.String,
  permissions: PermissionJson,
  has_issues: Schema.Boolean,
  internal_tracker: Schema.optionalKey(InternalTrackerJson),
  external_tracker: Schema.optionalKey(ExternalTrackerJson),
  has_wiki: Schema.Boolean,
  /** Forgejo v15: whether the wiki's git repository exists; Kiln has no wikis. */
  has_wiki_contents: Schema.Boolean,
  external_wiki: Schema.optionalKey(ExternalWikiJson),
  wiki_branch: Schema.optionalKey(Schema.String),
  /** Forgejo v15: the wiki's clone addresses (`<repo>.wiki.git`), sent whether or not it exists. */
  wiki_ssh_url: Schema.String,
  wiki_clone_url: Schema.String,
  globally_editable_wiki: Schema.Boolean,
  has_pull_requests: Schema.Boolean,
  has_projects: Schema.Boolean,
  has_releases: Schema.Boolean,
  has_packages: Schema.Boolean,
  has_actions: Schema.Boolean,
  ignore_whitespace_conflicts: Schema.Boolean,
  allow_merge_commits: Schema.Boolean,
  allow_rebase: Schema.Boolean,
  allow_rebase_explicit: Schema.Boolean,
  allow_squash_merge: Schema.Boolean,
  allow_fast_forward_only_merge: Schema.Boolean,
  allow_rebase_update: Schema.Boolean,
  default_delete_branch_after_merge: Schema.Boolean,
  default_merge_style: Schema.String,
  default_allow_maintainer_edit: Schema.Boolean,
  default_update_style: Schema.String,
  avatar_url: Schema.String,
  internal: Schema.Boolean,
  mirror_interval: Schema.String,
  object_format_name: Schema.String,
  mirror_updated: Schema.String,
  repo_transfer: Schema.Null,
  /** Forgejo stores `[]` for a repository without topics (models/repo/repo.go BeforeInsert); Kiln has no topics. */
  topics: Schema.Array(Schema.String)
}

/** A fork's base as nested in `parent`: the same keys, its own `parent` null. */
const ParentRepositoryJson = Schema.Struct(fields)

export const RepositoryJson = Schema.Struct({ ...fields, parent: Schema.NullOr(ParentRepositoryJson) })
  .annotate({ identifier: "Repository" })
export type RepositoryJson = typeof RepositoryJson.Type

/** A page of repositories. */
export const RepositoryListJson = Schema.Array(RepositoryJson)

export const SearchResultsJson = Schema.Struct({ ok: Schema.Boolean, data: RepositoryListJson })
  .annotate({ identifier: "SearchResults" })

/** The search results of a page serialized already, as `serialize` would give them. */
export const serializedSearchResults = (
  data: SerializedJson<typeof RepositoryListJson.Type>
): SerializedJson<typeof SearchResultsJson.Type> => `{"ok":true,"data":${data}}` as SerializedJson<typeof SearchResultsJson.Type>

export const RepoCollaboratorPermissionJson = Schema.Struct({
  permission: Schema.String,
  role_name: Schema.String,
  user: UserJson
}).annotate({ identifier: "RepoCollaboratorPermission" })

/** Go's time.Duration string of Forgejo's default mirror interval (8 hours). */
export const DEFAULT_MIRROR_INTERVAL = "8h0m0s"

const segment = encodeURIComponent

type ParentRepositoryJson = typeof ParentRepositoryJson.Type

export const toRepositoryJson = (item: AccessibleRepository, urls: SiteUrls): RepositoryJson =>
  repositoryJson(
    item,
    urls,
    // Forgejo renders the base with the fork's permissions.
    item.parent === undefined ? null : repositoryJson({ ...item.parent, access: item.access }, urls, null)
  )

/**
 * What `repositoryJson` reads of the caller's access, as a key: two callers with the same variant
 * get the same JSON of the same repository (RepositoryAnswers.ts keeps answers by it).
 */
export const accessVariant = (access: AccessibleRepository["access"]): string => `${access.mode} ${access.units["repo.code"]}`

/** The JSON of `item` with `parent` in its place (built in one literal: a page renders 50 of them). */
const repositoryJson = <Parent extends ParentRepositoryJson | null>(item: AccessibleRepository, urls: SiteUrls, parent: Parent) => {
  const { repository, owner, access } = item
  const { units } = repository
  const pulls = hasUnit(repository, "repo.pulls")
  // `owner/name` escaped once for the web, API and clone addresses.
  const path = `${segment(owner.name)}/${segment(repository.name)}`
  const htmlUrl = `${urls.rootUrl}${path}`
  const apiUrl = `${urls.rootUrl}api/v1/repos/${path}`
  const code: AccessMode = access.units["repo.code"]
  const issues = hasUnit(repository, "repo.issues")
  // Forgejo prefers the built-in unit when (impossibly) both are on.
  const externalIssues = !issues && hasUnit(repository, "repo.ext_issues")
  const wiki = hasUnit(repository, "repo.wiki")
  const externalWiki = !wiki && hasUnit(repository, "repo.ext_wiki")
  return {
    id: repository.id,
    // Nested owners show what a signed-in viewer sees whenever the caller has any access.
    owner: toUserJson(owner, urls, { signed: access.mode !== "none", privileged: false }),
    name: repository.name,
    full_name: `${owner.name}/${repository.name}`,
    description: repository.description,
    empty: repository.isEmpty,
    private: repository.isPrivate,
    fork: repository.isFork,
    template: repository.isTemplate,
    parent,
    mirror: repository.isMirror,
    size: Math.floor(repository.size / 1024),
    language: "",
    languages_url: `${apiUrl}/languages`,
    html_url: htmlUrl,
    url: apiUrl,
    link: "",
    // Forgejo's `CloneLink` (KILN_SSH_*).
    ssh_url: urls.sshCloneUrl(path),
    clone_url: `${htmlUrl}.git`,
    original_url: repository.originalUrl,
    website: repository.website,
    stars_count: repository.numStars,
    forks_count: repository.numForks,
    watchers_count: repository.numWatches,
    open_issues_count: repository.numOpenIssues,
    open_pr_counter: repository.numOpenPulls,
    release_counter: repository.numReleases,
    default_branch: repository.defaultBranch,
    archived: repository.isArchived,
    created_at: rfc3339(repository.createdAt),
    updated_at: rfc3339(repository.updatedAt),
    archived_at: rfc3339(repository.archivedAt),
    permissions: { admin: atLeast(access.mode, "admin"), push: atLeast(code, "write"), pull: atLeast(code, "read") },
    has_issues: issues || externalIssues,
    ...(issues
      ? {
        internal_tracker: {
          enable_time_tracker: units.issues.enableTimeTracker,
          allow_only_contributors_to_track_time: units.issues.allowOnlyContributorsToTrackTime,
          enable_issue_dependencies: units.issues.enableDependencies
        }
      }
      : {}),
    ...(externalIssues
      ? {
        external_tracker: {
          external_tracker_url: units.externalTracker.url,
          external_tracker_format: units.externalTracker.format,
          external_tracker_style: units.externalTracker.style,
          external_tracker_regexp_pattern: units.externalTracker.regexpPattern
        }
      }
      : {}),
    has_wiki: wiki || externalWiki,
    // Forgejo v15's `repo.HasWiki()` looks for the wiki's repository on disk; Kiln makes none.
    has_wiki_contents: false,
    ...(externalWiki ? { external_wiki: { external_wiki_url: units.externalWikiUrl } } : {}),
    ...(repository.wikiBranch === "" ? {} : { wiki_branch: repository.wikiBranch }),
    // `repo.WikiCloneLink()`: the clone addresses of `<name>.wiki`.
    wiki_ssh_url: `git@${urls.hostname}:${path}.wiki.git`,
    wiki_clone_url: `${htmlUrl}.wiki.git`,
    globally_editable_wiki: wiki && units.wikiGloballyEditable,
    has_pull_requests: pulls,
    has_projects: hasUnit(repository, "repo.projects"),
    has_releases: hasUnit(repository, "repo.releases"),
    has_packages: hasUnit(repository, "repo.packages"),
    has_actions: hasUnit(repository, "repo.actions"),
    ignore_whitespace_conflicts: pulls && units.pulls.ignoreWhitespaceConflicts,
    allow_merge_commits: pulls && units.pulls.allowMerge,
    allow_rebase: pulls && units.pulls.allowRebase,
    allow_rebase_explicit: pulls && units.pulls.allowRebaseMerge,
    allow_squash_merge: pulls && units.pulls.allowSquash,
    allow_fast_forward_only_merge: pulls && units.pulls.allowFastForwardOnly,
    allow_rebase_update: pulls && units.pulls.allowRebaseUpdate,
    default_delete_branch_after_merge: pulls && units.pulls.defaultDeleteBranchAfterMerge,
    default_merge_style: pulls ? units.pulls.defaultMergeStyle : "merge",
    default_allow_maintainer_edit: pulls && units.pulls.defaultAllowMaintainerEdit,
    default_update_style: pulls ? units.pulls.defaultUpdateStyle : "merge",
    avatar_url: "",
    internal: !repository.isPrivate && owner.visibility === "private",
    // Forgejo shows its pull mirror's interval; Kiln keeps none and shows Forgejo's default (setting.Mirror.DefaultInterval).
    mirror_interval: repository.isMirror ? DEFAULT_MIRROR_INTERVAL : "",
    object_format_name: repository.objectFormat,
    mirror_updated: ZERO_TIME,
    repo_transfer: null,
    topics: []
  }
}

/** Forgejo's `ToUserAndPermission`: the level's name is both `permission` and `role_name`. */
export const toCollaboratorPermissionJson = (mode: AccessMode, user: UserJson) => ({ permission: mode, role_name: mode, user })

