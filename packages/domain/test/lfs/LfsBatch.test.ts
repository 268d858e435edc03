/**
 * LfsObjects.batch against counting stand-ins of its stores: what it asks them for a batch that
 * names the same object many times, and what it answers for each requested item (Forgejo answers
 * one entry per requested object, in order, duplicates included).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { NotFound } from "../../src/errors.ts"
import { type BatchItem, layer as lfsObjectsLayer, LfsObjects } from "../../src/lfs/LfsObjects.ts"
import type { LfsPointer } from "../../src/lfs/LfsPointer.ts"
import { LfsStore } from "../../src/lfs/LfsStore.ts"
import { type AccessMode } from "../../src/org/AccessMode.ts"
import type { RepositoryAccess } from "../../src/org/RepositoryAccess.ts"
import { unitKeys, type UnitKey } from "../../src/org/Unit.ts"
import { QuotaEnforcement } from "../../src/quota/QuotaEnforcement.ts"
import { BlobStorage } from "../../src/release/BlobStorage.ts"
import { Repositories } from "../../src/repo/Repositories.ts"
import { newRepository, type OwnedRepository } from "../../src/repo/Repository.ts"
import { Transactions } from "../../src/repo/Transactions.ts"
import { newAccount, type User } from "../../src/user/User.ts"

const account = (id: number, name: string): User => ({
  id,
  lowerName: name.toLowerCase(),
  ...newAccount({ name, kind: "individual", createdAt: 0 })
})

const owned = (id: number, owner: User, isPrivate: boolean): OwnedRepository => ({
  owner,
  repository: {
    id,
    lowerName: `r${id}`,
    numReleases: 0,
    ...newRepository({
      ownerId: owner.id,
      name: `r${id}`,
      description: "",
      defaultBranch: "main",
      wikiBranch: "main",
      isPrivate,
      isEmpty: false
    }, 0)
  }
})

const accessAt = (code: AccessMode): RepositoryAccess => ({
  mode: code,
  units: Object.fromEntries(unitKeys.map((unit) => [unit, unit === "repo.code" ? code : "none"])) as Record<UnitKey, AccessMode>,
  hasAccess: code !== "none"
})

const bob = account(2, "bob")
const alice = account(3, "alice")
/** Bob's repository, the batch's target. */
const target = owned(10, bob, false)

/** Stored elsewhere: only in alice's private repositories, which bob cannot see. */
const hidden = { oid: "a".repeat(64), size: 5 }
/** Stored elsewhere: in alice's public repository 30. */
const readable = { oid: "b".repeat(64), size: 7 }
const HIDDEN_HOLDERS = [20, 21, 22]
const READABLE_HOLDERS = [30]

interface Calls {
  referencingRepositories: number
  accessibleById: number
  addReference: number
  referencedAmong: number
  storedAmong: number
}

const setup = () => {
  const calls: Calls = { referencingRepositories: 0, accessibleById: 0, addReference: 0, referencedAmong: 0, storedAmong: 0 }
  const references = new Map<string, number>()
  const stored = new Map([[hidden.oid, hidden.size], [readable.oid, readable.size]])
  const store = Layer.mock(LfsStore, {
    referencedAmong: (_repositoryId, oids) =>
      Effect.sync(() => {
        calls.referencedAmong++
        return new Map(oids.flatMap((oid) => {
          const size = references.get(oid)
          return size === undefined ? [] : [[oid, size] as const]
        }))
      }),
    storedAmong: (oids) =>
      Effect.sync(() => {
        calls.storedAmong++
        return new Map(oids.flatMap((oid) => {
          const size = stored.get(oid)
          return size === undefined ? [] : [[oid, size] as const]
        }))
      }),
    referencingRepositories: (oid, limit) =>
      Effect.sync(() => {
        calls.referencingRepositories++
        return (oid === hidden.oid ? HIDDEN_HOLDERS : oid === readable.oid ? READABLE_HOLDERS : []).slice(0, limit)
      }),
    addReference: (_repositoryId, object: LfsPointer) =>
      Effect.suspend(() => {
        calls.addReference++
        if (!stored.has(object.oid)) return Effect.fail(new NotFound({ message: "Not Found" }))
        const added = !references.has(object.oid)
        references.set(object.oid, object.size)
        return Effect.succeed(added)
      })
  })
  const repositories = Layer.mock(Repositories, {
    accessibleById: (_viewer, id) =>
      Effect.suspend(() => {
        calls.accessibleById++
        return READABLE_HOLDERS.includes(id)
          ? Effect.succeed({ ...owned(id, alice, false), access: accessAt("read") })
          : Effect.fail(new NotFound({ message: `repository does not exist [id: ${id}, uid: 0, owner_name: , name: ]` }))
      })
  })
  const layer = lfsObjectsLayer.pipe(
    Layer.provide(Layer.mergeAll(
      store,
      repositories,
      Layer.mock(BlobStorage, {}),
      Layer.mock(Transactions, { run: (effect) => effect }),
      Layer.succeed(QuotaEnforcement, QuotaEnforcement.of({ require: () => Effect.void })),
      Layer.mock(SecureRandom.SecureRandom, {})
    ))
  )
  return { calls, layer }
}

const tags = (items: ReadonlyArray<BatchItem>) => items.map((item) => `${item._tag}:${item.pointer.oid.slice(0, 1)}:${item.pointer.size}`)

describe("LfsObjects.batch with repeated objects", () => {
  it.effect("an object the caller may not read, named 5,000 times, is looked up once; every item asks for an upload", () => {
    const { calls, layer } = setup()
    return Effect.gen(function*() {
      const objects = yield* LfsObjects
      const requested = Array.from({ length: 5000 }, () => ({ ...hidden }))
      const items = yield* objects.batch(target, Option.some(bob), "upload", requested)
      assert.strictEqual(items.length, requested.length)
      assert.isTrue(items.every((item) => item._tag === "Upload" && item.pointer.oid === hidden.oid && item.pointer.size === hidden.size))
      assert.deepStrictEqual(calls, {
        referencingRepositories: 1,
        accessibleById: HIDDEN_HOLDERS.length,
        addReference: 0,
        referencedAmong: 1,
        storedAmong: 1
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("mixed duplicates: each distinct oid is decided once, and the answer keeps every item in order", () => {
    const { calls, layer } = setup()
    return Effect.gen(function*() {
      const objects = yield* LfsObjects
      const fresh = { oid: "c".repeat(64), size: 3 }
      const invalid = { oid: "not-an-oid", size: 1 }
      const requested = [hidden, readable, fresh, hidden, invalid, readable, fresh, hidden, readable, invalid]
      const items = yield* objects.batch(target, Option.some(bob), "upload", requested)
      assert.deepStrictEqual(tags(items), [
        "Upload:a:5",
        // Readable in alice's public repository: referenced without an upload, every time it is named.
        "Present:b:7",
        "Upload:c:3",
        "Upload:a:5",
        "Failed:n:1",
        "Present:b:7",
        "Upload:c:3",
        "Upload:a:5",
        "Present:b:7",
        "Failed:n:1"
      ])
      assert.deepStrictEqual(calls, {
        referencingRepositories: 2,
        accessibleById: HIDDEN_HOLDERS.length + READABLE_HOLDERS.length,
        addReference: 1,
        referencedAmong: 1,
        storedAmong: 1
      })
    }).pipe(Effect.provide(layer))
  })
})
