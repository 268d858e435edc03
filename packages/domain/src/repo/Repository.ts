/**
 * A repository as Kiln keeps it: the database row behind Forgejo's Repository JSON, with its units
 * (code, issues, pulls, ...) and their settings. The git data lives on disk (see GitStorage); the
 * row records where (owner and name) and how big it is. [models/repo/repo.go, models/repo/repo_unit.go]
 */
import type { UnitKey } from "../org/Unit.ts"
import { defaultRepoUnits } from "../org/Unit.ts"
import type { User } from "../user/User.ts"

/** The built-in issue tracker's settings (Forgejo's instance defaults: all on). */
export interface IssuesSettings {
  readonly enableTimeTracker: boolean
  readonly allowOnlyContributorsToTrackTime: boolean
  readonly enableDependencies: boolean
}

/** An external issue tracker's settings (`repo.ext_issues`). [models/repo/repo_unit.go ExternalTrackerConfig] */
export interface ExternalTrackerSettings {
  readonly url: string
  /** The issue URL, with `{user}`, `{repo}` and `{index}` placeholders. */
  readonly format: string
  /** `numeric`, `alphanumeric` or `regexp`; stored as given, as Forgejo does. */
  readonly style: string
  readonly regexpPattern: string
}

export const mergeStyles = [
  "merge",
  "rebase",
  "rebase-merge",
  "squash",
  "fast-forward-only",
  "manually-merged",
  "rebase-update-only"
] as const
export type MergeStyle = typeof mergeStyles[number]

export const updateStyles = ["merge", "rebase"] as const
export type UpdateStyle = typeof updateStyles[number]

export const isMergeStyle = (value: string): value is MergeStyle => mergeStyles.some((style) => style === value)
export const isUpdateStyle = (value: string): value is UpdateStyle => updateStyles.some((style) => style === value)

/** The pull-request unit's settings. */
export interface PullsSettings {
  readonly ignoreWhitespaceConflicts: boolean
  readonly allowMerge: boolean
  readonly allowRebase: boolean
  readonly allowRebaseMerge: boolean
  readonly allowSquash: boolean
  readonly allowFastForwardOnly: boolean
  readonly allowManualMerge: boolean
  readonly autodetectManualMerge: boolean
  readonly allowRebaseUpdate: boolean
  readonly defaultDeleteBranchAfterMerge: boolean
  readonly defaultMergeStyle: MergeStyle
  readonly defaultUpdateStyle: UpdateStyle
  readonly defaultAllowMaintainerEdit: boolean
}

export interface RepositoryUnits {
  /** Enabled units, in unit order. */
  readonly enabled: ReadonlyArray<UnitKey>
  readonly issues: IssuesSettings
  readonly pulls: PullsSettings
  /** The wiki's default permission is write (`globally_editable_wiki`). */
  readonly wikiGloballyEditable: boolean
  /** Kept while `repo.ext_issues` is enabled; empty otherwise. */
  readonly externalTracker: ExternalTrackerSettings
  /** The external wiki's URL while `repo.ext_wiki` is enabled; empty otherwise. */
  readonly externalWikiUrl: string
}

export type TrustModel = "default" | "collaborator" | "committer" | "collaboratorcommitter"

/** Forgejo's `ToTrustModel`: unknown text is `default`. */
export const trustModelOf = (text: string | undefined): TrustModel =>
  text === "collaborator" || text === "committer" || text === "collaboratorcommitter" ? text : "default"

export interface Repository {
  readonly id: number
  readonly ownerId: number
  readonly name: string
  /** Lower-cased name: unique within the owner. */
  readonly lowerName: string
  readonly description: string
  readonly website: string
  readonly defaultBranch: string
  readonly wikiBranch: string
  readonly isPrivate: boolean
  readonly isTemplate: boolean
  /** No branch yet (nothing pushed, no initial commit). */
  readonly isEmpty: boolean
  readonly isArchived: boolean
  readonly isFork: boolean
  /** The base repository of a fork; 0 otherwise. */
  readonly forkId: number
  readonly isMirror: boolean
  /** Where a migrated repository was cloned from, without credentials; empty otherwise. */
  readonly originalUrl: string
  /** Bytes on disk, LFS excluded (the JSON shows KiB). */
  readonly size: number
  readonly objectFormat: "sha1" | "sha256"
  readonly trustModel: TrustModel
  readonly units: RepositoryUnits
  readonly numStars: number
  readonly numForks: number
  readonly numWatches: number
  readonly numOpenIssues: number
  readonly numOpenPulls: number
  /** Published releases (drafts not counted): Forgejo's `NumReleases`, counted by the store. */
  readonly numReleases: number
  /** Unix seconds. */
  readonly createdAt: number
  readonly updatedAt: number
  /** Unix seconds; 0 when never archived. */
  readonly archivedAt: number
}

/** A repository with its owner, as lookups and lists return it. */
export interface OwnedRepository {
  readonly repository: Repository
  readonly owner: User
}

export type NewRepository = Omit<Repository, "id" | "lowerName" | "numReleases">

/**
 * A repository record created at `now`: `fields` over what every new repository starts with (no
 * website, not a template, fork, mirror or archive, no stars, forks, watchers, issues or pull
 * requests, size measured later, SHA-1, the default trust model and units).
 */
export const newRepository = (
  fields:
    & Pick<NewRepository, "ownerId" | "name" | "description" | "defaultBranch" | "wikiBranch" | "isPrivate" | "isEmpty">
    & Partial<NewRepository>,
  now: number
): NewRepository => ({
  website: "",
  isTemplate: false,
  isArchived: false,
  isFork: false,
  forkId: 0,
  isMirror: false,
  originalUrl: "",
  size: 0,
  objectFormat: "sha1",
  trustModel: "default",
  units: defaultUnits,
  numStars: 0,
  numForks: 0,
  numWatches: 0,
  numOpenIssues: 0,
  numOpenPulls: 0,
  createdAt: now,
  updatedAt: now,
  archivedAt: 0,
  ...fields
})

/** What an edit may change; `lowerName` follows `name`. */
export type RepositoryChanges = Partial<
  Pick<
    Repository,
    | "name"
    | "description"
    | "website"
    | "defaultBranch"
    | "isPrivate"
    | "isTemplate"
    | "isEmpty"
    | "isArchived"
    | "size"
    | "units"
    | "updatedAt"
    | "archivedAt"
  >
>

export const defaultIssuesSettings: IssuesSettings = {
  enableTimeTracker: true,
  allowOnlyContributorsToTrackTime: true,
  enableDependencies: true
}

/** What `CreateRepository` gives a new repository's pull-request unit. */
export const defaultPullsSettings: PullsSettings = {
  ignoreWhitespaceConflicts: false,
  allowMerge: true,
  allowRebase: true,
  allowRebaseMerge: true,
  allowSquash: true,
  allowFastForwardOnly: true,
  allowManualMerge: false,
  autodetectManualMerge: false,
  allowRebaseUpdate: true,
  defaultDeleteBranchAfterMerge: false,
  defaultMergeStyle: "merge",
  defaultUpdateStyle: "merge",
  defaultAllowMaintainerEdit: false
}

export const noExternalTracker: ExternalTrackerSettings = { url: "", format: "", style: "", regexpPattern: "" }

export const defaultUnits: RepositoryUnits = {
  enabled: defaultRepoUnits,
  issues: defaultIssuesSettings,
  pulls: defaultPullsSettings,
  wikiGloballyEditable: false,
  externalTracker: noExternalTracker,
  externalWikiUrl: ""
}

export const hasUnit = (repository: Repository, unit: UnitKey): boolean => repository.units.enabled.includes(unit)

/** `owner/name` as Forgejo's `FullName` (not escaped). */
export const fullName = (owned: OwnedRepository): string => `${owned.owner.name}/${owned.repository.name}`

/** Forgejo's `ErrRepoNotExist` text. */
export const repositoryNotFoundMessage = (owner: string, name: string): string =>
  `repository does not exist [id: 0, uid: 0, owner_name: ${owner}, name: ${name}]`

/** The 409 of every create route. */
export const REPOSITORY_EXISTS_MESSAGE = "The repository with the same name already exists."


/** Forgejo's `ErrRepoFilesAlreadyExist` text: a directory without a row holds the name (409). */
export const repositoryFilesExistMessage = (owner: string, name: string): string =>
  `repository files already exist [uname: ${owner}, name: ${name}]`
