/**
 * What every push goes through, whichever transport carried it (smart HTTP or SSH): the
 * repository's write section across processes, with its branch table marked pending until the push
 * and its sync succeed; then, inside the section, the repository record (size and quota totals),
 * the branch table and the push's webhook deliveries.
 */
import { Cause, Effect, Option, Result } from "effect"
import { branchNamesAmong } from "@kiln/domain/git/Branch"
import { Branches, type ChangeSection } from "@kiln/domain/git/Branches"
import { Repositories } from "@kiln/domain/repo/Repositories"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { UserStore } from "@kiln/domain/user/UserStore"
import { WebhookEvents } from "@kiln/domain/webhook/WebhookEvents"
import type { Push, PushTarget } from "@kiln/git"
import { makeHookPayloads } from "../webhooks/HookPayloads.ts"

export interface GitPushes {
  /**
   * A token for the repository an access decision read, to go with the push it allowed
   * (`PushTarget.grant`): the push's write section then reads no row of its own.
   */
  readonly grantFor: (target: OwnedRepository) => object
  /** Runs a push as its repository's write section. A repository without a row has no table to keep. */
  readonly writeSection: <A>(target: PushTarget, push: () => Promise<A>) => Promise<A>
  /** The follow-up of a push that changed refs, inside its write section. */
  readonly afterPush: (push: Push) => Promise<void>
}

export const make = Effect.gen(function*() {
  const repositories = yield* Repositories
  const store = yield* RepositoryStore
  const branches = yield* Branches
  const users = yield* UserStore
  const webhookEvents = yield* WebhookEvents
  const payloads = yield* makeHookPayloads
  const services = yield* Effect.context<never>()
  const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(services)(effect)

  /**
   * The repository each write section of this process is for, by path, and what the section found
   * as it began: its push's follow-up reads neither again.
   */
  const sections = new Map<string, { readonly owned: OwnedRepository; readonly section: ChangeSection }>()
  /** The rows access decisions read, by their tokens; a token the transport drops takes its row with it. */
  const granted = new WeakMap<object, OwnedRepository>()

  const grantFor = (target: OwnedRepository): object => {
    const token = {}
    granted.set(token, target)
    return token
  }

  const writeSection = <A>(target: PushTarget, push: () => Promise<A>): Promise<A> =>
    run(Effect.gen(function*() {
      const pushing = Effect.tryPromise({ try: push, catch: (error) => error })
      const decided = target.grant === undefined ? undefined : granted.get(target.grant)
      // The decision read the row a moment ago, for this very request; the section re-reads what it
      // writes (Repositories.recordPush) under the repository's lock.
      const found = decided === undefined ? yield* store.find(target.owner, target.repo) : Option.some(decided)
      if (Option.isNone(found)) return yield* Effect.result(pushing)
      const held = (section: ChangeSection) =>
        Effect.acquireUseRelease(
          Effect.sync(() => sections.set(target.path, { owned: found.value, section })),
          () => pushing,
          () => Effect.sync(() => sections.delete(target.path))
        )
      return yield* Effect.result(branches.changeSection(found.value, held))
    })).then((result) => Result.isSuccess(result) ? result.success : Promise.reject(result.failure))

  /**
   * The push is git's and done by now: no transaction can include it, so none is held across the
   * branch table's git reads and its lock (on the embedded database that would keep its one
   * connection from everyone). The deliveries go in one transaction of their own.
   */
  const afterPush = (push: Push) =>
    Effect.gen(function*() {
      const held = sections.get(push.path)
      const found = held === undefined ? yield* store.find(push.owner, push.repo) : Option.some(held.owned)
      if (Option.isNone(found)) return
      const repository = yield* repositories.recordPush(found.value.repository.id, branchNamesAmong(push.refs.keys()), found.value).pipe(Effect.orDie)
      const owned = { ...found.value, repository }
      yield* branches.recordPush(owned, push.updates, held?.section)
      const events = Effect.gen(function*() {
        const pusher = push.pusher === undefined ? Option.none() : yield* users.findById(push.pusher)
        if (Option.isNone(pusher)) return []
        const perRef = yield* Effect.forEach(push.updates, (update) => payloads.refEvents(owned, pusher.value, update))
        return perRef.flat()
      }).pipe(
        // The push happened whatever its payloads.
        Effect.catchCause((cause) => Effect.as(Effect.logError("webhook events of a push not built", Cause.pretty(cause)), []))
      )
      yield* webhookEvents.emitBuilt({ repositoryId: repository.id, ownerId: owned.owner.id }, events)
    })

  return { grantFor, writeSection, afterPush: (push: Push) => run(afterPush(push)) } satisfies GitPushes
})
