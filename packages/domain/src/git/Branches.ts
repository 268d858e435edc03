/**
 * Branches of a repository (api-facts §4.6): listed and read from the branch table, created and
 * deleted in git and then recorded, and the table kept in step with the refs after every push.
 * [routers/api/v1/repo/branch.go, services/repository/branch.go, modules/repository/branch.go]
 *
 * Every change of refs and of the table runs as the repository's write section (WriteLocks, across
 * processes) and re-reads the refs it concerns from git, so whatever order pushes and API calls
 * finish in, the last one to record a branch records what git holds. A section marks the table
 * pending before its git step and clears the mark once the table is synced; a mark left behind (a
 * process killed mid-push, a failed sync) makes the next section, read or start re-read every ref
 * of that repository. A repository whose table is empty although it has branches (never synced, or
 * emptied) is re-read from git once, as Forgejo's `SyncRepoBranches` does.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { repositoryKey, WriteLocks } from "../coordination/WriteLocks.ts"
import { checkMaxSize } from "../binding/MaxSize.ts"
import { AlreadyExists, Conflict, Forbidden, Invalid, NotFound } from "../errors.ts"
import { atLeast } from "../org/AccessMode.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { AccessibleRepository } from "../repo/Repositories.ts"
import type { OwnedRepository } from "../repo/Repository.ts"
import { RepositoryStore } from "../repo/RepositoryStore.ts"
import { type CommitVerification, notSigned, UnverifiedReason, unverified } from "../signing/CommitVerification.ts"
import { splitSignature } from "../signing/SignedCommitObject.ts"
import { signingKeyFor } from "../signing/SigningKeyResolution.ts"
import { SigningKeys } from "../signing/SigningKeys.ts"
import {
  type Branch,
  BRANCH_EXISTS_MESSAGE,
  BRANCH_PREFIX,
  branchMissingMessage,
  branchNameOf,
  branchOf,
  DEFAULT_BRANCH_MESSAGE,
  EMPTY_REPOSITORY_MESSAGE,
  MIRROR_REPOSITORY_MESSAGE,
  OLD_BRANCH_MISSING_MESSAGE,
  REQUIRE_CODE_READ_MESSAGE,
  REQUIRE_CODE_WRITE_MESSAGE
} from "./Branch.ts"
import { BranchStore } from "./BranchStore.ts"
import type { CommitInfo } from "./CommitInfo.ts"
import { GitStorage, type RepositoryLocation } from "./GitStorage.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"
import { isValidRefName } from "./RefName.ts"
import type { RefUpdate } from "./RefUpdate.ts"

/** Forgejo's `mustNotBeArchived` gate: 423 with `<Repository id:owner/name> is archived`. */
export class RepositoryArchived extends Schema.TaggedError<RepositoryArchived>()("RepositoryArchived", {
  message: Schema.String
}) {}

/**
 * `old_ref_name` (or the default branch) names no commit. Forgejo answers 500; Kiln 404, as for a
 * missing `old_branch_name` (a client's mistake is not a server error).
 */
export class BranchSourceMissing extends Schema.TaggedError<BranchSourceMissing>()("BranchSourceMissing", {
  message: Schema.String
}) {}

/** CreateBranchRepoOption; "" means not given. */
export interface CreateBranchInput {
  readonly newBranchName: string
  readonly oldRefName: string
  readonly oldBranchName: string
}

export type CreateBranchFailure =
  | Forbidden
  | RepositoryArchived
  | Invalid
  | NotFound
  | AlreadyExists
  | Conflict
  | BranchSourceMissing
  | GitStorageFailure

export type DeleteBranchFailure = Forbidden | RepositoryArchived | NotFound | GitStorageFailure

export class Branches extends Context.Service<Branches, {
  /** Forbidden without code read; none for an empty repository (Forgejo answers `null`). */
  readonly list: (target: AccessibleRepository, page: PageRequest) => Effect.Effect<Option.Option<Page<Branch>>, Forbidden>
  /** Forbidden without code read; NotFound `branch does not exist [name: x]`. */
  readonly get: (target: AccessibleRepository, name: string) => Effect.Effect<Branch, Forbidden | NotFound>
  /**
   * In Forgejo's order: Forbidden without code write; RepositoryArchived; Invalid `[BranchName]: Required|GitRefName|MaxSize`,
   * `[OldBranchName]: GitRefName|MaxSize`, `[OldRefName]: GitRefName|MaxSize`;
   * NotFound `Git Repository is empty.`; Forbidden `Git Repository is a mirror.`; BranchSourceMissing for an
   * `old_ref_name` that names no commit; NotFound `The old branch does not exist`; AlreadyExists
   * `The branch already exists.`; Conflict for a tag of that name or a name colliding with a branch path.
   */
  readonly create: (target: AccessibleRepository, input: CreateBranchInput) => Effect.Effect<Branch, CreateBranchFailure>
  /**
   * Forbidden without code write; RepositoryArchived; NotFound `Git Repository is empty.`; Forbidden
   * `Git Repository is a mirror.`; Forbidden `can not delete default branch`; NotFound `branch does not exist [name: x]`.
   */
  readonly remove: (target: AccessibleRepository, name: string) => Effect.Effect<void, DeleteBranchFailure>
  /**
   * Runs `change` (git steps that change refs, then `recordPush` for them) as the repository's
   * write section, with the table marked pending until `change` succeeds; a mark found at the start
   * (left by a section that never finished) makes the section re-read every branch afterwards.
   * `change` is given what the section found as it began.
   */
  readonly changeSection: <A, E, R>(repository: OwnedRepository, change: (section: ChangeSection) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Inside `changeSection`, after a push: records what the pushed branch refs now hold (tags are not
   * recorded). Without the `section`, the table is asked whether it holds any branch.
   */
  readonly recordPush: (repository: OwnedRepository, updates: ReadonlyArray<RefUpdate>, section?: ChangeSection) => Effect.Effect<void>
  /** Re-reads every branch from git (after repository creation, or when the table was lost). */
  readonly resync: (repository: OwnedRepository) => Effect.Effect<void>
  /** Re-reads the repositories whose mark was left behind and whose section is free; how many. */
  readonly healPending: Effect.Effect<number>
}>()("@kiln/domain/git/Branches") {}

/** What a write section found as it began; nothing but the section writes the table until it ends. */
export interface ChangeSection {
  /** Whether the table held any branch: a table without one is re-read whole once git is done. */
  readonly hadBranches: boolean
}

const locationOf = (owned: OwnedRepository): RepositoryLocation => ({ owner: owned.owner.name, name: owned.repository.name })

const canRead = (target: AccessibleRepository) =>
  atLeast(target.access.units["repo.code"], "read") || atLeast(target.access.mode, "admin")
const canWrite = (target: AccessibleRepository) =>
  atLeast(target.access.units["repo.code"], "write") || atLeast(target.access.mode, "admin")

export const layer: Layer.Layer<Branches, never, GitStorage | BranchStore | RepositoryStore | WriteLocks> = Layer.effect(
  Branches,
  Effect.gen(function*() {
    const git = yield* GitStorage
    const store = yield* BranchStore
    const repositories = yield* RepositoryStore
    const writeLocks = yield* WriteLocks
    // Without a signing key service nothing verifies: signed commits show as signed by an unknown key.
    const signingKeys = yield* Effect.serviceOption(SigningKeys)
    const locked = (repositoryId: number) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      writeLocks.withLock(repositoryKey(repositoryId), effect)

    const verificationOf = (location: RepositoryLocation, commit: CommitInfo): Effect.Effect<CommitVerification> =>
      Effect.gen(function*() {
        if (Option.isNone(commit.signature)) return notSigned
        const raw = yield* git.rawCommit(location, commit.id).pipe(Effect.orDie)
        const { payload, signature } = splitSignature(raw)
        if (Option.isNone(signature)) return notSigned
        const signed = { payload, signature: signature.value }
        return yield* Option.match(signingKeys, {
          onNone: () => Effect.succeed(unverified(UnverifiedReason.noKeyFound, signed)),
          onSome: (instanceKey) => signingKeyFor(instanceKey, location).verify(signed.payload, signed.signature)
        })
      })

    /** Branches at the same commit share one verification. */
    const verifier = (location: RepositoryLocation) => {
      const known = new Map<string, CommitVerification>()
      return (commit: CommitInfo) =>
        Effect.gen(function*() {
          const cached = known.get(commit.id)
          if (cached !== undefined) return cached
          const verification = yield* verificationOf(location, commit)
          known.set(commit.id, verification)
          return verification
        })
    }

    const resyncUnlocked = (owned: OwnedRepository) =>
      Effect.gen(function*() {
        const location = locationOf(owned)
        const heads = yield* git.listBranches(location).pipe(Effect.orDie)
        const verify = verifier(location)
        const branches = yield* Effect.forEach(heads, (head) =>
          Effect.map(verify(head.commit), (verification) => branchOf(head.name, head.commit, verification)))
        yield* store.replaceAll(owned.repository.id, branches)
      })

    /**
     * The sections in progress whose mark their branches' record may clear (none was left behind
     * before them), and whether it did.
     */
    const clearable = new WeakMap<ChangeSection, { cleared: boolean }>()

    /**
     * Inside the section: records what git holds for each named branch now (a missing branch is
     * forgotten), in one statement that also clears the section's mark when nothing was left behind:
     * the table then holds what git holds.
     */
    const recordBranches = (owned: OwnedRepository, names: ReadonlyArray<string>, section: ChangeSection | undefined) =>
      Effect.gen(function*() {
        const hadBranches = section === undefined ? yield* store.hasAny(owned.repository.id) : section.hadBranches
        if (!hadBranches) return yield* resyncUnlocked(owned)
        const location = locationOf(owned)
        const verify = verifier(location)
        const put: Array<Branch> = []
        const remove: Array<string> = []
        for (const name of names) {
          const head = yield* git.resolveCommit(location, `${BRANCH_PREFIX}${name}`).pipe(Effect.option)
          if (Option.isNone(head)) remove.push(name)
          else put.push(branchOf(name, head.value, yield* verify(head.value)))
        }
        const clearing = section === undefined ? undefined : clearable.get(section)
        yield* store.record(owned.repository.id, { put, remove }, clearing !== undefined)
        if (clearing !== undefined) clearing.cleared = true
      })

    const changeSection = <A, E, R>(owned: OwnedRepository, change: (section: ChangeSection) => Effect.Effect<A, E, R>) =>
      locked(owned.repository.id)(Effect.gen(function*() {
        const id = owned.repository.id
        const { leftBehind, hasAny } = yield* store.markPending(id)
        const section: ChangeSection = { hadBranches: hasAny }
        const clearing = { cleared: false }
        if (!leftBehind) clearable.set(section, clearing)
        const result = yield* change(section)
        if (leftBehind) yield* resyncUnlocked(owned)
        if (!clearing.cleared) yield* store.clearPending(id)
        return result
      }))

    /**
     * A mark whose section is free was left behind: re-read everything. A section in progress will
     * sync the table itself, and until it does the table answers as one process would mid-push.
     */
    const heal = (owned: OwnedRepository) =>
      writeLocks.whenFree(repositoryKey(owned.repository.id), Effect.gen(function*() {
        if (!(yield* store.syncState(owned.repository.id)).pending) return false
        yield* resyncUnlocked(owned)
        yield* store.clearPending(owned.repository.id)
        return true
      }))

    /** Heals a left-behind mark, and Forgejo's "non-empty repository should have at least 1 branch" re-read. */
    const ensureSynced = (owned: OwnedRepository) =>
      Effect.gen(function*() {
        const state = yield* store.syncState(owned.repository.id)
        if (state.pending) return yield* heal(owned)
        if (owned.repository.isEmpty || state.hasAny) return
        yield* locked(owned.repository.id)(
          Effect.flatMap(store.hasAny(owned.repository.id), (again) => again ? Effect.void : resyncUnlocked(owned))
        )
      })

    const requireRead = (target: AccessibleRepository) =>
      canRead(target) ? Effect.void : Effect.fail(new Forbidden({ message: REQUIRE_CODE_READ_MESSAGE }))

    /** `reqRepoWriter(code)` then `mustNotBeArchived`. */
    const requireWritable = (target: AccessibleRepository) =>
      Effect.gen(function*() {
        if (!canWrite(target)) return yield* new Forbidden({ message: REQUIRE_CODE_WRITE_MESSAGE })
        const { repository, owner } = target
        if (repository.isArchived) {
          return yield* new RepositoryArchived({ message: `<Repository ${repository.id}:${owner.name}/${repository.name}> is archived` })
        }
      })

    /** The repository has a git tree to change: not empty, not a mirror. */
    const requireChangeable = (target: AccessibleRepository) =>
      target.repository.isEmpty
        ? Effect.fail(new NotFound({ message: EMPTY_REPOSITORY_MESSAGE }))
        : target.repository.isMirror
        ? Effect.fail(new Forbidden({ message: MIRROR_REPOSITORY_MESSAGE }))
        : Effect.void

    /** `GitRefName;MaxSize(100)` of one field; "" passes unless the field is required. */
    const bindRefName = (field: string, name: string, required: boolean) =>
      name === "" ? (required ? Effect.fail(new Invalid({ field, message: `[${field}]: Required` })) : Effect.void)
        : !isValidRefName(name) ? Effect.fail(new Invalid({ field, message: `[${field}]: GitRefName` }))
        : checkMaxSize(field, name, 100)

    /** CreateBranchRepoOption's binding, in its fields' order: nothing else reaches git. */
    const bindInput = (input: CreateBranchInput) =>
      Effect.andThen(
        bindRefName("BranchName", input.newBranchName, true),
        Effect.andThen(bindRefName("OldBranchName", input.oldBranchName, false), bindRefName("OldRefName", input.oldRefName, false))
      )

    const sourceCommit = (target: AccessibleRepository, input: CreateBranchInput) => {
      const location = locationOf(target)
      if (input.oldRefName !== "") {
        return git.resolveCommit(location, input.oldRefName).pipe(
          Effect.mapError(() => new BranchSourceMissing({ message: `object does not exist [id: ${input.oldRefName}, rel_path: ]` }))
        )
      }
      if (input.oldBranchName !== "") {
        return git.resolveCommit(location, `${BRANCH_PREFIX}${input.oldBranchName}`).pipe(
          Effect.mapError(() => new NotFound({ message: OLD_BRANCH_MISSING_MESSAGE }))
        )
      }
      const fallback = target.repository.defaultBranch
      return git.resolveCommit(location, `${BRANCH_PREFIX}${fallback}`).pipe(
        Effect.mapError(() => new BranchSourceMissing({ message: branchMissingMessage(fallback) }))
      )
    }

    const findRecorded = (owned: OwnedRepository, name: string) =>
      Effect.flatMap(store.find(owned.repository.id, name), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ message: branchMissingMessage(name) })))

    return Branches.of({
      list: (target, page) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          if (target.repository.isEmpty) return Option.none()
          yield* ensureSynced(target)
          return Option.some(yield* store.list(target.repository.id, page))
        }),

      get: (target, name) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          yield* ensureSynced(target)
          return yield* findRecorded(target, name)
        }),

      create: (target, input) =>
        Effect.gen(function*() {
          yield* requireWritable(target)
          yield* bindInput(input)
          yield* requireChangeable(target)
          yield* ensureSynced(target)
          const source = yield* sourceCommit(target, input)
          yield* changeSection(target, (section) => Effect.gen(function*() {
            yield* git.createBranch(locationOf(target), input.newBranchName, source.id).pipe(
              Effect.catchTag("AlreadyExists", () => Effect.fail(new AlreadyExists({ message: BRANCH_EXISTS_MESSAGE }))),
              Effect.catchTag("Invalid", () => Effect.fail(new Invalid({ field: "BranchName", message: "[BranchName]: GitRefName" }))),
              // The source commit was just read: it cannot be missing unless the repository vanished.
              Effect.catchTag("NotFound", (error) => Effect.die(error))
            )
            yield* recordBranches(target, [input.newBranchName], section)
          }))
          return yield* findRecorded(target, input.newBranchName).pipe(Effect.orDie)
        }),

      remove: (target, name) =>
        Effect.gen(function*() {
          yield* requireWritable(target)
          yield* requireChangeable(target)
          yield* ensureSynced(target)
          if (name === target.repository.defaultBranch) return yield* new Forbidden({ message: DEFAULT_BRANCH_MESSAGE })
          const missing = new NotFound({ message: branchMissingMessage(name) })
          yield* changeSection(target, (section) => Effect.gen(function*() {
            yield* git.deleteBranch(locationOf(target), name).pipe(
              Effect.catchTag("NotFound", () => Effect.fail(missing)),
              Effect.catchTag("Invalid", () => Effect.fail(missing)),
              // Moved by a push between reading and deleting: the push won; the branch is not what was asked for.
              Effect.catchTag("Conflict", () => Effect.fail(missing))
            )
            yield* recordBranches(target, [name], section)
          }))
        }),

      recordPush: (repository, updates, section) => {
        const names = updates.flatMap((update) => {
          const name = branchNameOf(update.ref)
          return name === undefined ? [] : [name]
        })
        return names.length === 0 ? Effect.void : recordBranches(repository, names, section)
      },

      changeSection,

      resync: (repository) => locked(repository.repository.id)(resyncUnlocked(repository)),

      healPending: Effect.gen(function*() {
        let healed = 0
        for (const id of yield* store.pending()) {
          const found = yield* repositories.findById(id)
          if (Option.isNone(found)) continue
          if ((yield* heal(found.value)) === true) healed++
        }
        return healed
      })
    })
  })
)
