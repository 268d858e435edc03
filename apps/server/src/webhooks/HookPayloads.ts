/**
 * The events Kiln's changes send to webhooks, with Forgejo's payloads (modules/structs/hook.go):
 * the repository and users as the API renders them (the repository with the access mode Forgejo's
 * notifier gives it, users as an anonymous viewer sees them), and for pushes the commits as
 * Forgejo's push handling lists them. [services/webhook/notifier.go, services/repository/push.go]
 */
import { Effect, Option } from "effect"
import type { Branch } from "@kiln/domain/git/Branch"
import { type RefUpdate, refUpdateKind, ZeroId } from "@kiln/domain/git/RefUpdate"
import type { AccessMode } from "@kiln/domain/org/AccessMode"
import { uniform } from "@kiln/domain/org/RepositoryAccess"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import type { HookEvent, Json, JsonObject } from "@kiln/domain/webhook/HookEvent"
import { pathEscapeSegments } from "@kiln/domain/webhook/payloads/PayloadFields"
import { type PushedCommit, PushCommits } from "@kiln/domain/webhook/PushCommits"
import { KilnConfig } from "../config/KilnConfig.ts"
import { toBranchJson } from "../wire/Branch.ts"
import { toRepositoryJson } from "../wire/Repository.ts"
import { siteUrls, toUserJson } from "../wire/User.ts"

/** Forgejo's `setting.Webhook.PayloadCommitLimit`. */
export const PAYLOAD_COMMIT_LIMIT = 15
/** Commits a new branch lists when there is nothing to compare it with (CommitsBeforeLimit). */
const NEW_BRANCH_COMMITS = 10

const BRANCH_PREFIX = "refs/heads/"
const TAG_PREFIX = "refs/tags/"

const refType = (ref: string): string => ref.startsWith(TAG_PREFIX) ? "tag" : ref.startsWith(BRANCH_PREFIX) ? "branch" : ""
const branchOf = (ref: string): string | undefined => ref.startsWith(BRANCH_PREFIX) ? ref.slice(BRANCH_PREFIX.length) : undefined

/** JSON values built from the wire types, which are plain JSON already. */
const json = (value: unknown): Json => JSON.parse(JSON.stringify(value))

export const makeHookPayloads = Effect.gen(function*() {
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)
  const users = yield* UserStore
  const pushCommits = yield* PushCommits

  const repositoryJson = (owned: OwnedRepository, mode: AccessMode): Json =>
    json(toRepositoryJson({ ...owned, access: uniform(mode, owned.repository.units.enabled) }, urls))
  const userJson = (user: User): Json => json(toUserJson(user, urls, { signed: false, privileged: false }))
  const htmlUrl = (owned: OwnedRepository) =>
    `${urls.rootUrl}${encodeURIComponent(owned.owner.name)}/${encodeURIComponent(owned.repository.name)}`
  /** `ComposeCompareURL` behind the root URL. */
  const compareUrl = (owned: OwnedRepository, from: string, to: string) =>
    `${htmlUrl(owned)}/compare/${pathEscapeSegments(from)}...${pathEscapeSegments(to)}`

  /** The account name of each commit e-mail address ("" for none), looked up once per push. */
  const usernames = (commits: ReadonlyArray<PushedCommit>) =>
    Effect.gen(function*() {
      const names = new Map<string, string>()
      for (const email of new Set(commits.flatMap((commit) => [commit.authorEmail, commit.committerEmail]))) {
        const account = yield* users.findByEmail(email)
        names.set(email, Option.match(account, { onNone: () => "", onSome: (user) => user.name }))
      }
      return names
    })

  const payloadCommit = (owned: OwnedRepository, names: ReadonlyMap<string, string>) => (commit: PushedCommit): JsonObject => ({
    id: commit.id,
    message: commit.message,
    url: `${htmlUrl(owned)}/commit/${encodeURIComponent(commit.id)}`,
    author: { name: commit.authorName, email: commit.authorEmail, username: names.get(commit.authorEmail) ?? "" },
    committer: { name: commit.committerName, email: commit.committerEmail, username: names.get(commit.committerEmail) ?? "" },
    verification: null,
    timestamp: commit.timestamp,
    added: commit.added,
    removed: commit.removed,
    modified: commit.modified
  })

  const pushEvent = (
    owned: OwnedRepository,
    pusher: User,
    update: RefUpdate,
    listed: { readonly commits: ReadonlyArray<PushedCommit>; readonly total: number; readonly head: PushedCommit | undefined },
    compare: string
  ) =>
    Effect.gen(function*() {
      const names = yield* usernames(listed.head === undefined ? listed.commits : [...listed.commits, listed.head])
      const toPayload = payloadCommit(owned, names)
      const commits = listed.commits.slice(0, PAYLOAD_COMMIT_LIMIT).map(toPayload)
      const head = listed.head === undefined ? null : toPayload(listed.head)
      const sender = userJson(pusher)
      const event: HookEvent = {
        type: "push",
        action: "",
        branch: branchOf(update.ref),
        commitCount: commits.length,
        payload: {
          ref: update.ref,
          before: update.oldId,
          after: update.newId,
          compare_url: compare,
          commits,
          total_commits: listed.total,
          head_commit: head,
          repository: repositoryJson(owned, "owner"),
          pusher: sender,
          sender
        }
      }
      return event
    })

  const createEvent = (owned: OwnedRepository, sender: User, ref: string, sha: string): HookEvent => ({
    type: "create",
    action: "",
    branch: branchOf(ref),
    commitCount: undefined,
    payload: { sha, ref, ref_type: refType(ref), repository: repositoryJson(owned, "none"), sender: userJson(sender) }
  })

  const deleteEvent = (owned: OwnedRepository, sender: User, ref: string): HookEvent => ({
    type: "delete",
    action: "",
    branch: branchOf(ref),
    commitCount: undefined,
    payload: { ref, ref_type: refType(ref), pusher_type: "user", repository: repositoryJson(owned, "owner"), sender: userJson(sender) }
  })

  const location = (owned: OwnedRepository) => ({ owner: owned.owner.name, name: owned.repository.name })
  const commitAt = (owned: OwnedRepository, id: string) =>
    Effect.map(pushCommits.list(location(owned), `${id}^{commit}`, undefined, 1), (listed) => listed.commits[0])

  /**
   * The events of one updated ref, in Forgejo's order: a new branch sends `create` then `push`, an
   * updated one `push`, a deleted one `delete`; a new tag `push` then `create`, a deleted one
   * `push` then `delete`.
   */
  const refEvents = (owned: OwnedRepository, pusher: User, update: RefUpdate) =>
    Effect.gen(function*() {
      const kind = refUpdateKind(update)
      const branch = branchOf(update.ref)
      if (update.ref.startsWith(TAG_PREFIX)) {
        if (kind === "delete") {
          const push = yield* pushEvent(owned, pusher, update, { commits: [], total: 0, head: undefined }, urls.rootUrl)
          return [push, deleteEvent(owned, pusher, update.ref)]
        }
        const head = yield* commitAt(owned, update.newId)
        const push = yield* pushEvent(owned, pusher, { ...update, oldId: ZeroId }, { commits: [], total: 0, head }, compareUrl(owned, ZeroId, update.newId))
        return kind === "create" ? [push, createEvent(owned, pusher, update.ref, update.newId)] : [push]
      }
      if (branch === undefined) return []
      if (kind === "delete") return [deleteEvent(owned, pusher, update.ref)]
      const defaultBranch = owned.repository.defaultBranch
      // What the push's commits are counted from: the old head, else the default branch (when it exists).
      const all = pushCommits.list(location(owned), update.newId, undefined, NEW_BRANCH_COMMITS)
      const listed = kind === "update"
        ? yield* pushCommits.list(location(owned), update.newId, update.oldId, PAYLOAD_COMMIT_LIMIT)
        : branch === defaultBranch
        ? yield* all
        : yield* pushCommits.list(location(owned), update.newId, `${BRANCH_PREFIX}${defaultBranch}`, PAYLOAD_COMMIT_LIMIT).pipe(
          // Without a default branch git fails: list as if there were nothing to compare with.
          Effect.catchDefect(() => all)
        )
      const first = listed.commits[0]
      const head = first !== undefined && first.id === update.newId ? first : yield* commitAt(owned, update.newId)
      let from = update.oldId
      const oldest = listed.commits.at(-1)
      if (from === ZeroId && oldest !== undefined && oldest.parents[0] !== undefined) from = oldest.parents[0]
      if (from === ZeroId && defaultBranch !== branch) from = defaultBranch
      const compare = from === ZeroId ? urls.rootUrl : compareUrl(owned, from, update.newId)
      const push = yield* pushEvent(owned, pusher, update, { ...listed, head }, compare)
      return kind === "create" ? [createEvent(owned, pusher, update.ref, update.newId), push] : [push]
    })

  /** The hook test: a push of `branch`'s head commit as the API shows it (Forgejo's ToPayloadCommit). */
  const testPushEvent = (owned: OwnedRepository, doer: User, ref: string, branch: Branch) =>
    Effect.gen(function*() {
      const names = new Map<string, string>()
      for (const email of [branch.author.email, branch.committer.email]) {
        const account = yield* users.findByEmail(email)
        names.set(email, Option.match(account, { onNone: () => "", onSome: (user) => user.name }))
      }
      const commit = json(toBranchJson(branch, {
        htmlUrl: htmlUrl(owned),
        canWrite: false,
        usernameOf: (email) => names.get(email) ?? ""
      }).commit)
      const sender = userJson(doer)
      const event: HookEvent = {
        type: "push",
        action: "",
        branch: branchOf(ref),
        commitCount: 1,
        payload: {
          ref,
          before: branch.commitId,
          after: branch.commitId,
          compare_url: compareUrl(owned, branch.commitId, branch.commitId),
          commits: [commit],
          total_commits: 1,
          head_commit: commit,
          repository: repositoryJson(owned, "none"),
          pusher: sender,
          sender
        }
      }
      return event
    })

  return { refEvents, createEvent, deleteEvent, testPushEvent, repositoryJson, userJson }
})
