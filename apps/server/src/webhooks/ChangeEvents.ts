/**
 * The webhook events of changes made through the API, emitted in the transaction of the change:
 * `run(change, events)` runs the change and writes the deliveries of the events it produced with
 * it, so a change that fails leaves none. Changes of git refs alone (branches) use `afterGit`. [services/webhook/notifier.go; services/repository
 * branch.go, delete.go, fork.go; services/release/release.go]
 */
import { Effect } from "effect"
import { GitStorage } from "@kiln/domain/git/GitStorage"
import { type RefUpdate, ZeroId } from "@kiln/domain/git/RefUpdate"
import type { ReleaseDetails } from "@kiln/domain/release/Release"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import { Transactions } from "@kiln/domain/repo/Transactions"
import type { User } from "@kiln/domain/user/User"
import type { HookEvent } from "@kiln/domain/webhook/HookEvent"
import { WebhookEvents } from "@kiln/domain/webhook/WebhookEvents"
import { KilnConfig } from "../config/KilnConfig.ts"
import { toReleaseJson } from "../wire/Release.ts"
import { siteUrls } from "../wire/User.ts"
import { makeHookPayloads } from "./HookPayloads.ts"

export type ReleaseAction = "published" | "updated" | "deleted"

export const makeChangeEvents = Effect.gen(function*() {
  const transactions = yield* Transactions
  const webhookEvents = yield* WebhookEvents
  const payloads = yield* makeHookPayloads
  const settings = yield* KilnConfig
  const urls = siteUrls(settings.rootUrl, settings.ssh)
  const git = yield* GitStorage

  const sourceOf = (owned: OwnedRepository) => ({ repositoryId: owned.repository.id, ownerId: owned.owner.id })

  /** Runs `change`; `events` of its result are delivered with it, in the same transaction. */
  const run = <A, E, R, E2, R2>(
    change: Effect.Effect<A, E, R>,
    events: (result: A) => Effect.Effect<{ readonly source: OwnedRepository; readonly events: ReadonlyArray<HookEvent> }, E2, R2>
  ) =>
    transactions.run(Effect.gen(function*() {
      const result = yield* change
      const produced = yield* events(result)
      yield* webhookEvents.emit(sourceOf(produced.source), produced.events)
      return result
    }))

  /**
   * Runs `change`, a change of git refs, and then delivers `events` of its result in a transaction of
   * their own. A ref is git's, not the database's: no transaction can include it, and holding one
   * across git would only keep the (embedded) database's connection from everyone else meanwhile.
   */
  const afterGit = <A, E, R, E2, R2>(
    change: Effect.Effect<A, E, R>,
    events: (result: A) => Effect.Effect<{ readonly source: OwnedRepository; readonly events: ReadonlyArray<HookEvent> }, E2, R2>
  ) =>
    Effect.gen(function*() {
      const result = yield* change
      const produced = yield* events(result)
      yield* webhookEvents.emit(sourceOf(produced.source), produced.events)
      return result
    })

  /** A branch created or deleted through the API: the events a push of that ref sends. */
  const refChanged = (target: OwnedRepository, doer: User, update: RefUpdate) =>
    Effect.map(payloads.refEvents(target, doer, update), (events) => ({ source: target, events }))

  const repositoryEvent = (owned: OwnedRepository, doer: User, action: "created" | "deleted"): HookEvent => ({
    type: "repository",
    action,
    branch: undefined,
    commitCount: undefined,
    // One space: Forgejo's RepositoryPayload.JSONPayload is json.MarshalIndent(p, "", " ") (as
    // Gitea's and Gogs'), unlike the other payloads' two. [modules/structs/hook.go]
    indent: " ",
    payload: {
      action,
      repository: payloads.repositoryJson(owned, "owner"),
      organization: payloads.userJson(owned.owner),
      sender: payloads.userJson(doer)
    }
  })

  const forkEvent = (base: AccessibleRepository, fork: AccessibleRepository, doer: User): HookEvent => ({
    type: "fork",
    action: "",
    branch: undefined,
    commitCount: undefined,
    payload: {
      forkee: payloads.repositoryJson(base, base.access.mode),
      repository: payloads.repositoryJson(fork, fork.access.mode),
      sender: payloads.userJson(doer)
    }
  })

  const releaseEvent = (target: AccessibleRepository, doer: User, details: ReleaseDetails, action: ReleaseAction): HookEvent => ({
    type: "release",
    action,
    branch: undefined,
    commitCount: undefined,
    payload: {
      action,
      release: JSON.parse(JSON.stringify(toReleaseJson(details, target, urls))),
      repository: payloads.repositoryJson(target, target.access.mode),
      sender: payloads.userJson(doer)
    }
  })

  return {
    run,
    afterGit,
    branchCreated: (target: OwnedRepository, doer: User, name: string, commitId: string) =>
      refChanged(target, doer, { ref: `refs/heads/${name}`, oldId: ZeroId, newId: commitId }),
    branchDeleted: (target: OwnedRepository, doer: User, name: string, commitId: string) =>
      refChanged(target, doer, { ref: `refs/heads/${name}`, oldId: commitId, newId: ZeroId }),
    repositoryCreated: (owned: OwnedRepository, doer: User) =>
      Effect.succeed({ source: owned, events: [repositoryEvent(owned, doer, "created")] }),
    repositoryDeleted: (owned: OwnedRepository, doer: User) => repositoryEvent(owned, doer, "deleted"),
    /** The base's hooks hear of the fork; an organization's hooks also of the repository it gained. */
    forked: (base: AccessibleRepository, fork: AccessibleRepository, doer: User) =>
      Effect.succeed({ source: base, events: [forkEvent(base, fork, doer)] }),
    forkCreated: (fork: AccessibleRepository, doer: User) =>
      fork.owner.kind === "organization" ? [repositoryEvent(fork, doer, "created")] : [],
    release: (target: AccessibleRepository, doer: User, details: ReleaseDetails, action: ReleaseAction) =>
      Effect.succeed({ source: target, events: details.release.isDraft && action !== "deleted" ? [] : [releaseEvent(target, doer, details, action)] }),
    /** Whether the tag is in git now: a release that makes it sends the tag's `push` and `create` first. */
    tagExists: (target: OwnedRepository, tagName: string) =>
      Effect.map(
        Effect.option(git.resolveCommit({ owner: target.owner.name, name: target.repository.name }, `refs/tags/${tagName}`)),
        (found) => found._tag === "Some"
      ),
    /** A published release, after the events of the tag it made (`tagWasNew`), as Forgejo's createTag sends them. */
    releasePublished: (target: AccessibleRepository, doer: User, details: ReleaseDetails, tagWasNew: boolean) =>
      Effect.gen(function*() {
        const published = details.release.isDraft ? [] : [releaseEvent(target, doer, details, "published")]
        if (!tagWasNew || details.release.isDraft) return { source: target, events: published }
        const tag = yield* payloads.refEvents(target, doer, { ref: `refs/tags/${details.release.tagName}`, oldId: ZeroId, newId: details.release.sha1 })
        return { source: target, events: [...tag, ...published] }
      }),
    emit: (owned: OwnedRepository, events: ReadonlyArray<HookEvent>) => webhookEvents.emit(sourceOf(owned), events)
  }
})
