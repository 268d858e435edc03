/**
 * The branch table against git: for every repository row with a directory, the branches git holds
 * and the rows recorded for them. They part when a crash falls between a push and its recording, or
 * when a backup's files were copied after its rows were read (a push in between); git is the truth,
 * so a repair rewrites the repository's rows from its refs (Branches.resync).
 */
import { Context, Effect, Layer, Option } from "effect"
import { pageRequest } from "../Paging.ts"
import { RepositoryStore } from "../repo/RepositoryStore.ts"
import { Branches } from "./Branches.ts"
import { BranchStore } from "./BranchStore.ts"
import { GitStorage, type RepositoryLocation } from "./GitStorage.ts"
import { RepositoryDirectories } from "./RepositoryDirectories.ts"

export interface BranchMismatch {
  readonly location: RepositoryLocation
  /** Branches whose row is missing or names another commit than git. */
  readonly differing: ReadonlyArray<string>
  /** Rows of branches git does not have. */
  readonly extra: ReadonlyArray<string>
}

export class BranchTableConsistency extends Context.Service<BranchTableConsistency, {
  /** Every repository whose rows differ from its refs (repositories without a directory are skipped). */
  readonly mismatches: Effect.Effect<ReadonlyArray<BranchMismatch>>
  /** Rewrites the rows of each repository from its refs. */
  readonly repair: (locations: ReadonlyArray<RepositoryLocation>) => Effect.Effect<void>
}>()("@kiln/domain/git/BranchTableConsistency") {}

const PAGE = 50

export const layer: Layer.Layer<
  BranchTableConsistency,
  never,
  RepositoryStore | BranchStore | GitStorage | Branches | RepositoryDirectories
> = Layer.effect(
  BranchTableConsistency,
  Effect.gen(function*() {
    const repositories = yield* RepositoryStore
    const rows = yield* BranchStore
    const git = yield* GitStorage
    const branches = yield* Branches
    const directories = yield* RepositoryDirectories

    const recorded = (repositoryId: number) =>
      Effect.gen(function*() {
        const found = new Map<string, string>()
        for (let page = 1; ; page++) {
          const result = yield* rows.list(repositoryId, pageRequest(page, PAGE))
          for (const branch of result.items) found.set(branch.name, branch.commitId)
          if (result.items.length < PAGE) return found
        }
      })

    const compare = (location: RepositoryLocation) =>
      Effect.gen(function*() {
        const owned = yield* repositories.find(location.owner, location.name)
        if (Option.isNone(owned)) return Option.none<BranchMismatch>()
        const heads = yield* git.listBranches(location).pipe(Effect.option)
        if (Option.isNone(heads)) return Option.none<BranchMismatch>()
        const table = yield* recorded(owned.value.repository.id)
        const differing = heads.value.filter((head) => table.get(head.name) !== head.commit.id).map((head) => head.name)
        const inGit = new Set(heads.value.map((head) => head.name))
        const extra = [...table.keys()].filter((name) => !inGit.has(name))
        return differing.length === 0 && extra.length === 0 ? Option.none<BranchMismatch>() : Option.some({ location, differing, extra })
      })

    return BranchTableConsistency.of({
      mismatches: Effect.gen(function*() {
        const found: Array<BranchMismatch> = []
        // From the disk's side: rows without a directory are another check's (and a restored
        // instance can have far more rows than directories), directories without a row too.
        for (const location of yield* Effect.orDie(directories.list)) {
          const mismatch = yield* compare(location)
          if (Option.isSome(mismatch)) found.push(mismatch.value)
        }
        return found
      }),
      repair: (locations) =>
        Effect.forEach(locations, (location) =>
          Effect.flatMap(repositories.find(location.owner, location.name), (owned) =>
            Option.isSome(owned) ? branches.resync(owned.value) : Effect.void), { discard: true })
    })
  })
)
