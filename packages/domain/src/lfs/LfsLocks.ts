/**
 * git-lfs's file locks on a repository GitAccess opened to the caller (Forgejo's
 * services/lfs/locks.go): one lock per path; a second lock on a path fails with the existing one
 * (409); anyone who may push may verify and, with `force`, remove another's lock (Forgejo's rule);
 * an unknown lock is NotFound (404, where Forgejo answers 500). Pages are cursors over the locks,
 * oldest first: the cursor is the number of locks already listed.
 */
import { Clock, Context, Data, Effect, Layer, Option } from "effect"
import { Forbidden, Invalid, NotFound } from "../errors.ts"
import type { OwnedRepository } from "../repo/Repository.ts"
import type { User } from "../user/User.ts"
import { cleanLockPath, type LfsLock } from "./LfsLock.ts"
import { LfsSettings } from "./LfsSettings.ts"
import { LfsStore } from "./LfsStore.ts"

/** The path is locked already: Forgejo's 409 with the existing lock. */
export class LfsLockExists extends Data.TaggedError("LfsLockExists")<{ readonly lock: LfsLock }> {}

export interface LockPageRequest {
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

export interface LockPage {
  readonly locks: ReadonlyArray<LfsLock>
  /** Where the next page starts; none after the last. */
  readonly nextCursor: Option.Option<string>
}

export class LfsLocks extends Context.Service<LfsLocks, {
  readonly create: (target: OwnedRepository, owner: User, path: string) => Effect.Effect<LfsLock, LfsLockExists | Invalid>
  readonly list: (
    target: OwnedRepository,
    filter: LockPageRequest & { readonly id?: string | undefined; readonly path?: string | undefined }
  ) => Effect.Effect<LockPage, Invalid>
  readonly verify: (
    target: OwnedRepository,
    caller: User,
    page: LockPageRequest
  ) => Effect.Effect<{ readonly ours: ReadonlyArray<LfsLock>; readonly theirs: ReadonlyArray<LfsLock>; readonly nextCursor: Option.Option<string> }, Invalid>
  readonly unlock: (target: OwnedRepository, caller: User, id: string, force: boolean) => Effect.Effect<LfsLock, NotFound | Forbidden>
}>()("@kiln/domain/lfs/LfsLocks") {}

export const UNLOCK_FORBIDDEN = "user does not have permission to delete this lock"

const cursorOffset = (cursor: string | undefined): Effect.Effect<number, Invalid> => {
  if (cursor === undefined || cursor === "") return Effect.succeed(0)
  return /^\d{1,15}$/.test(cursor) ? Effect.succeed(Number(cursor)) : Effect.fail(new Invalid({ message: `bad request : invalid cursor ${cursor}` }))
}

const lockId = (id: string): Option.Option<number> => /^\d{1,15}$/.test(id) ? Option.some(Number(id)) : Option.none()

export const layer: Layer.Layer<LfsLocks, never, LfsStore> = Layer.effect(
  LfsLocks,
  Effect.gen(function*() {
    const store = yield* LfsStore
    const settings = yield* LfsSettings

    const pageOf = Effect.fnUntraced(function*(repositoryId: number, request: LockPageRequest) {
      const offset = yield* cursorOffset(request.cursor)
      const limit = request.limit === undefined || request.limit <= 0 ? settings.locksPageSize : Math.min(request.limit, settings.locksPageSize)
      // One more than the page tells whether a next page exists.
      const found = yield* store.locks(repositoryId, { offset, limit: limit + 1 })
      return {
        locks: found.slice(0, limit),
        nextCursor: found.length > limit ? Option.some(String(offset + limit)) : Option.none<string>()
      }
    })

    const create = Effect.fnUntraced(function*(target: OwnedRepository, owner: User, path: string) {
      const cleaned = cleanLockPath(path)
      if (cleaned === "") return yield* new Invalid({ message: "lock path must not be empty" })
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      return yield* store.createLock(target.repository.id, cleaned, owner.id, now).pipe(
        Effect.catchTag("AlreadyExists", () =>
          Effect.flatMap(store.locks(target.repository.id, { path: cleaned, offset: 0, limit: 1 }), ([existing]): Effect.Effect<never, Invalid | LfsLockExists> =>
            existing === undefined
              // Removed between the two statements: the caller may simply try again.
              ? Effect.fail(new Invalid({ message: "the lock changed meanwhile, try again" }))
              : Effect.fail(new LfsLockExists({ lock: existing }))))
      )
    })

    const list = Effect.fnUntraced(function*(
      target: OwnedRepository,
      filter: LockPageRequest & { readonly id?: string | undefined; readonly path?: string | undefined }
    ) {
      const repositoryId = target.repository.id
      if (filter.id !== undefined && filter.id !== "") {
        const id = lockId(filter.id)
        if (Option.isNone(id)) return yield* new Invalid({ message: `bad request : invalid lock id ${filter.id}` })
        const locks = yield* store.locks(repositoryId, { id: id.value, offset: 0, limit: 1 })
        return { locks, nextCursor: Option.none<string>() }
      }
      if (filter.path !== undefined && filter.path !== "") {
        const locks = yield* store.locks(repositoryId, { path: cleanLockPath(filter.path), offset: 0, limit: 1 })
        return { locks, nextCursor: Option.none<string>() }
      }
      return yield* pageOf(repositoryId, filter)
    })

    const verify = Effect.fnUntraced(function*(target: OwnedRepository, caller: User, page: LockPageRequest) {
      const { locks, nextCursor } = yield* pageOf(target.repository.id, page)
      return {
        ours: locks.filter((lock) => lock.owner.id === caller.id),
        theirs: locks.filter((lock) => lock.owner.id !== caller.id),
        nextCursor
      }
    })

    const unlock = Effect.fnUntraced(function*(target: OwnedRepository, caller: User, id: string, force: boolean) {
      const parsed = lockId(id)
      const [lock] = Option.isSome(parsed) ? yield* store.locks(target.repository.id, { id: parsed.value, offset: 0, limit: 1 }) : []
      if (lock === undefined) return yield* new NotFound({ message: "Not Found" })
      if (lock.owner.id !== caller.id && !force) return yield* new Forbidden({ message: UNLOCK_FORBIDDEN })
      yield* store.removeLock(target.repository.id, lock.id)
      return lock
    })

    return LfsLocks.of({ create, list, verify, unlock })
  })
)
