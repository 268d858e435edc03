/**
 * Forgejo's quota JSON (modules/structs/quota.go, services/convert/quota.go): rules, groups, usage
 * and the used-item lists, and the option bodies of the admin endpoints.
 * Non-admin views leave out the names of groups and rules (`omitempty` on an empty name).
 */
import { Schema } from "effect"
import type { QuotaGroup } from "@kiln/domain/quota/QuotaGroup"
import type { QuotaRule } from "@kiln/domain/quota/QuotaRule"
import type { QuotaInfo } from "@kiln/domain/quota/QuotaService"
import type { AttachmentContainer, QuotaArtifact, QuotaAttachment, QuotaPackage, RepositoryPath } from "@kiln/domain/quota/UsedAssets"

const Int64 = Schema.Number.annotate({ format: "int64" })
const described = <S extends Schema.Top>(schema: S, description: string) => schema.annotate({ description })

export const QuotaRuleInfoJson = Schema.Struct({
  name: Schema.optionalKey(described(Schema.String, "Name of the rule (only shown to admins)")),
  limit: described(Int64, "The limit set by the rule"),
  subjects: Schema.optionalKey(described(Schema.Array(Schema.String), "Subjects the rule affects"))
}).annotate({ identifier: "QuotaRuleInfo", description: "QuotaRuleInfo contains information about a quota rule" })
export type QuotaRuleInfoJson = typeof QuotaRuleInfoJson.Type

export const QuotaGroupJson = Schema.Struct({
  name: Schema.optionalKey(described(Schema.String, "Name of the group")),
  rules: described(Schema.Array(QuotaRuleInfoJson), "Rules associated with the group")
}).annotate({ identifier: "QuotaGroup", description: "QuotaGroup represents a quota group" })
export type QuotaGroupJson = typeof QuotaGroupJson.Type

export const QuotaUsedJson = Schema.Struct({
  size: Schema.Struct({
    repos: Schema.Struct({
      public: described(Int64, "Storage size of the user's public repositories"),
      private: described(Int64, "Storage size of the user's private repositories")
    }).annotate({ identifier: "QuotaUsedSizeRepos" }),
    git: Schema.Struct({
      LFS: described(Int64, "Storage size of the user's Git LFS objects")
    }).annotate({ identifier: "QuotaUsedSizeGit" }),
    assets: Schema.Struct({
      attachments: Schema.Struct({
        issues: described(Int64, "Storage size used for the user's issue & comment attachments"),
        releases: described(Int64, "Storage size used for the user's release attachments")
      }).annotate({ identifier: "QuotaUsedSizeAssetsAttachments" }),
      artifacts: described(Int64, "Storage size used for the user's artifacts"),
      packages: Schema.Struct({
        all: described(Int64, "Storage size used for the user's packages")
      }).annotate({ identifier: "QuotaUsedSizeAssetsPackages" })
    }).annotate({ identifier: "QuotaUsedSizeAssets" })
  }).annotate({ identifier: "QuotaUsedSize" })
}).annotate({ identifier: "QuotaUsed", description: "QuotaUsed represents the quota usage of a user" })

export const QuotaInfoJson = Schema.Struct({
  used: QuotaUsedJson,
  groups: Schema.Array(QuotaGroupJson)
}).annotate({ identifier: "QuotaInfo", description: "QuotaInfo represents information about a user's quota" })
export type QuotaInfoJson = typeof QuotaInfoJson.Type

export const QuotaUsedAttachmentJson = Schema.Struct({
  name: described(Schema.String, "Filename of the attachment"),
  size: described(Int64, "Size of the attachment (in bytes)"),
  api_url: described(Schema.String, "API URL for the attachment"),
  contained_in: Schema.Struct({
    api_url: described(Schema.String, "API URL for the object that contains this attachment"),
    html_url: described(Schema.String, "HTML URL for the object that contains this attachment")
  })
}).annotate({ identifier: "QuotaUsedAttachment" })
export type QuotaUsedAttachmentJson = typeof QuotaUsedAttachmentJson.Type

export const QuotaUsedPackageJson = Schema.Struct({
  name: described(Schema.String, "Name of the package"),
  type: described(Schema.String, "Type of the package"),
  version: described(Schema.String, "Version of the package"),
  size: described(Int64, "Size of the package version"),
  html_url: described(Schema.String, "HTML URL to the package version")
}).annotate({ identifier: "QuotaUsedPackage" })
export type QuotaUsedPackageJson = typeof QuotaUsedPackageJson.Type

export const QuotaUsedArtifactJson = Schema.Struct({
  name: described(Schema.String, "Name of the artifact"),
  size: described(Int64, "Size of the artifact (compressed)"),
  html_url: described(Schema.String, "HTML URL to the action run containing the artifact")
}).annotate({ identifier: "QuotaUsedArtifact" })
export type QuotaUsedArtifactJson = typeof QuotaUsedArtifactJson.Type

// --- option bodies ---

const Limit = described(Schema.Number.check(Schema.isInt()).annotate({ format: "int64" }), "The limit set by the rule")
const Subjects = described(Schema.Array(Schema.String), "The subjects affected by the rule")
/** Forgejo keeps rule and group names in 255-character columns; longer is a binding error, not a database one. */
const QuotaName = Schema.String.check(Schema.isMaxLength(255))

export const CreateQuotaRuleOptions = Schema.Struct({
  name: Schema.optionalKey(described(QuotaName, "Name of the rule to create")),
  limit: Schema.optionalKey(Limit),
  subjects: Schema.optionalKey(Subjects)
}).annotate({
  identifier: "CreateQuotaRuleOptions",
  description: "CreateQuotaRuleOptions represents the options for creating a quota rule"
})

export const CreateQuotaGroupOptions = Schema.Struct({
  name: Schema.optionalKey(described(QuotaName, "Name of the quota group to create")),
  rules: Schema.optionalKey(described(
    Schema.Array(CreateQuotaRuleOptions),
    "Rules to add to the newly created group.\nIf a rule does not exist, it will be created."
  ))
}).annotate({
  identifier: "CreateQuotaGroupOptions",
  description: "CreateQutaGroupOptions represents the options for creating a quota group"
})

export const EditQuotaRuleOptions = Schema.Struct({
  limit: Schema.optionalKey(Limit),
  subjects: Schema.optionalKey(Subjects)
}).annotate({
  identifier: "EditQuotaRuleOptions",
  description: "EditQuotaRuleOptions represents the options for editing a quota rule"
})

export const SetUserQuotaGroupsOptions = Schema.Struct({
  groups: Schema.optionalKey(described(Schema.Array(Schema.String), "Quota groups the user shall have"))
}).annotate({
  identifier: "SetUserQuotaGroupsOptions",
  description: "SetUserQuotaGroupsOptions represents the quota groups of a user"
})

// --- conversions ---

/** `withNames`: the admin view; elsewhere names are left out. */
export const toQuotaRuleInfoJson = (rule: QuotaRule, withNames: boolean): QuotaRuleInfoJson => ({
  ...(withNames && rule.name !== "" ? { name: rule.name } : {}),
  limit: rule.limit,
  ...(rule.subjects.length > 0 ? { subjects: [...rule.subjects] } : {})
})

export const toQuotaGroupJson = (group: QuotaGroup, withNames: boolean): QuotaGroupJson => ({
  ...(withNames && group.name !== "" ? { name: group.name } : {}),
  rules: group.rules.map((rule) => toQuotaRuleInfoJson(rule, withNames))
})

export const toQuotaInfoJson = (info: QuotaInfo, withNames: boolean): QuotaInfoJson => ({
  used: {
    size: {
      repos: { public: info.usage.reposPublic, private: info.usage.reposPrivate },
      git: { LFS: info.usage.gitLfs },
      assets: {
        attachments: { issues: info.usage.attachmentsIssues, releases: info.usage.attachmentsReleases },
        artifacts: info.usage.artifacts,
        packages: { all: info.usage.packages }
      }
    }
  },
  groups: info.groups.map((group) => toQuotaGroupJson(group, withNames))
})

const segment = (text: string) => encodeURIComponent(text)

/** `<root>owner/name` and `<root>api/v1/repos/owner/name`, as Forgejo's Repository.HTMLURL/APIURL. */
const repositoryUrls = (rootUrl: string, repository: RepositoryPath) => {
  const path = `${segment(repository.owner)}/${segment(repository.name)}`
  return { html: `${rootUrl}${path}`, api: `${rootUrl}api/v1/repos/${path}` }
}

/** The API and HTML URLs of what holds an attachment; both empty for an unlinked one, as in Forgejo. */
const containerUrls = (rootUrl: string, repository: RepositoryPath, container: AttachmentContainer) => {
  const repo = repositoryUrls(rootUrl, repository)
  switch (container._tag) {
    case "Release":
      return {
        api: `${repo.api}/releases/${container.releaseId}`,
        html: `${repo.html}/releases/tag/${container.tagName.split("/").map(segment).join("/")}`
      }
    case "Comment":
      return {
        api: `${repo.api}/issues/comments/${container.commentId}`,
        html: `${repo.html}/${container.isPull ? "pulls" : "issues"}/${container.issueIndex}#issuecomment-${container.commentId}`
      }
    case "Issue":
      return {
        api: `${repo.api}/issues/${container.issueIndex}`,
        html: `${repo.html}/${container.isPull ? "pulls" : "issues"}/${container.issueIndex}`
      }
    case "Unlinked":
      return { api: "", html: "" }
  }
}

export const toQuotaUsedAttachmentJson = (rootUrl: string, attachment: QuotaAttachment): QuotaUsedAttachmentJson => {
  const container = containerUrls(rootUrl, attachment.repository, attachment.container)
  return {
    name: attachment.name,
    size: attachment.size,
    api_url: `${container.api}/assets/${attachment.id}`,
    contained_in: { api_url: container.api, html_url: container.html }
  }
}

/** Forgejo's PackageDescriptor.VersionHTMLURL: `<root>owner/-/packages/type/name/version`. */
export const toQuotaUsedPackageJson = (rootUrl: string, pkg: QuotaPackage): QuotaUsedPackageJson => ({
  name: pkg.name,
  type: pkg.type,
  version: pkg.version,
  size: pkg.size,
  html_url: `${rootUrl}${segment(pkg.owner)}/-/packages/${pkg.type}/${segment(pkg.name)}/${segment(pkg.version)}`
})

/** The HTML URL is the run's page: `<repository>/actions/runs/<index>`. */
export const toQuotaUsedArtifactJson = (rootUrl: string, artifact: QuotaArtifact): QuotaUsedArtifactJson => ({
  name: artifact.name,
  size: artifact.size,
  html_url: `${repositoryUrls(rootUrl, artifact.repository).html}/actions/runs/${artifact.runIndex}`
})
