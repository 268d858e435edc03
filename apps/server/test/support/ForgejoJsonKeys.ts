/**
 * The JSON keys of Forgejo's structs (modules/structs), in declaration order, which is the order
 * encoding/json writes them. A trailing `?` marks `omitempty` on a field Go can omit (pointers,
 * strings, slices, booleans; never a time.Time, which encoding/json always writes). `nested` names
 * the struct of each key whose value is another of these structs (or a list of them).
 */
export interface ForgejoStruct {
  readonly keys: ReadonlyArray<string>
  readonly nested?: Readonly<Record<string, string>>
}

export const FORGEJO_STRUCTS: Readonly<Record<string, ForgejoStruct>> = {
  // `User.MarshalJSON` appends `username` after the struct's own keys.
  User: {
    keys: ["id", "login", "login_name", "source_id", "full_name", "email", "avatar_url", "html_url", "language", "is_admin",
      "last_login", "created", "restricted", "active", "prohibit_login", "location", "pronouns", "website", "description",
      "visibility", "followers_count", "following_count", "starred_repos_count", "username"]
  },
  Repository: {
    keys: ["id", "owner", "name", "full_name", "description", "empty", "private", "fork", "template", "parent", "mirror", "size",
      "language", "languages_url", "html_url", "url", "link", "ssh_url", "clone_url", "original_url", "website", "stars_count",
      "forks_count", "watchers_count", "open_issues_count", "open_pr_counter", "release_counter", "default_branch", "archived",
      "created_at", "updated_at", "archived_at", "permissions?", "has_issues", "internal_tracker?", "external_tracker?",
      "has_wiki", "has_wiki_contents", "external_wiki?", "wiki_branch?", "wiki_ssh_url", "wiki_clone_url", "globally_editable_wiki", "has_pull_requests", "has_projects",
      "has_releases", "has_packages", "has_actions", "ignore_whitespace_conflicts", "allow_merge_commits", "allow_rebase",
      "allow_rebase_explicit", "allow_squash_merge", "allow_fast_forward_only_merge", "allow_rebase_update",
      "default_delete_branch_after_merge", "default_merge_style", "default_allow_maintainer_edit", "default_update_style",
      "avatar_url", "internal", "mirror_interval", "object_format_name", "mirror_updated", "repo_transfer", "topics"],
    nested: { owner: "User", parent: "Repository", permissions: "Permission", internal_tracker: "InternalTracker" }
  },
  Permission: { keys: ["admin", "push", "pull"] },
  InternalTracker: { keys: ["enable_time_tracker", "allow_only_contributors_to_track_time", "enable_issue_dependencies"] },
  SearchResults: { keys: ["ok", "data"], nested: { data: "Repository" } },
  RepoCollaboratorPermission: { keys: ["permission", "role_name", "user"], nested: { user: "User" } },
  Organization: {
    keys: ["id", "name", "full_name", "email", "avatar_url", "description", "website", "location", "visibility",
      "repo_admin_change_team_access", "username", "created"]
  },
  Team: {
    keys: ["id", "name", "description", "organization", "includes_all_repositories", "permission", "units", "units_map",
      "can_create_org_repo"],
    nested: { organization: "Organization" }
  },
  Hook: {
    keys: ["id", "type", "branch_filter", "url", "config", "events", "authorization_header", "content_type", "metadata",
      "active", "updated_at", "created_at"]
  },
  Release: {
    keys: ["id", "tag_name", "target_commitish", "name", "body", "url", "html_url", "tarball_url", "zipball_url",
      "hide_archive_links", "upload_url", "draft", "prerelease", "created_at", "published_at", "author", "assets",
      "archive_download_count"],
    nested: { author: "User", assets: "Attachment", archive_download_count: "TagArchiveDownloadCount" }
  },
  TagArchiveDownloadCount: { keys: ["zip", "tar_gz"] },
  Attachment: { keys: ["id", "name", "size", "download_count", "created_at", "uuid", "browser_download_url", "type"] },
  Branch: {
    keys: ["name", "commit", "protected", "required_approvals", "enable_status_check", "status_check_contexts",
      "user_can_push", "user_can_merge", "effective_branch_protection_name"],
    nested: { commit: "PayloadCommit" }
  },
  PayloadCommit: {
    keys: ["id", "message", "url", "author", "committer", "verification", "timestamp", "added", "removed", "modified"],
    nested: { author: "PayloadUser", committer: "PayloadUser", verification: "PayloadCommitVerification" }
  },
  PayloadUser: { keys: ["name", "email", "username"] },
  PayloadCommitVerification: { keys: ["verified", "reason", "signature", "signer", "payload"], nested: { signer: "PayloadUser" } },
  CommitStatus: {
    keys: ["id", "status", "target_url", "description", "url", "context", "creator", "created_at", "updated_at"],
    nested: { creator: "User" }
  },
  CombinedStatus: {
    keys: ["state", "sha", "total_count", "statuses", "repository", "commit_url", "url"],
    nested: { statuses: "CommitStatus", repository: "Repository" }
  },
  AccessToken: { keys: ["id", "name", "sha1", "token_last_eight", "scopes", "created_at", "repositories"] },
  PublicKey: {
    keys: ["id", "key", "url?", "title?", "fingerprint?", "created_at", "updated_at", "user?", "read_only?", "key_type?"],
    nested: { user: "User" }
  },
  Package: {
    keys: ["id", "owner", "repository", "creator", "type", "name", "version", "html_url", "created_at"],
    nested: { owner: "User", repository: "Repository", creator: "User" }
  },
  QuotaInfo: { keys: ["used", "groups"], nested: { groups: "QuotaGroup" } },
  QuotaGroup: { keys: ["name?", "rules"], nested: { rules: "QuotaRuleInfo" } },
  QuotaRuleInfo: { keys: ["name?", "limit", "subjects?"] },
  ServerVersion: { keys: ["version"] },
  // routers/api/v1/user/user.go Search answers a Go map, whose keys encoding/json sorts.
  UserSearchResults: { keys: ["data", "ok"], nested: { data: "User" } }
}

/**
 * Where `value` (an object of struct `name`, or a list of them) departs from Forgejo's keys: a
 * missing key that Forgejo always writes, a key Forgejo does not have, or keys out of order.
 */
export const keyOrderProblems = (value: unknown, name: string, where = name): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, index) => keyOrderProblems(item, name, `${where}[${index}]`))
  const struct = FORGEJO_STRUCTS[name]
  if (struct === undefined) return [`${where}: no Forgejo struct named ${name}`]
  if (typeof value !== "object" || value === null) return []
  const record = value as Record<string, unknown>
  const actual = Object.keys(record)
  const expected = struct.keys
    .filter((key) => !key.endsWith("?") || key.slice(0, -1) in record)
    .map((key) => key.replace(/\?$/, ""))
  const problems = actual.join(",") === expected.join(",") ? [] : [`${where}: ${actual.join(",")} ≠ Forgejo's ${expected.join(",")}`]
  for (const [key, nested] of Object.entries(struct.nested ?? {})) {
    problems.push(...keyOrderProblems(record[key], nested, `${where}.${key}`))
  }
  return problems
}
