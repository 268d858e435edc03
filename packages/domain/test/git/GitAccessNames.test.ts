/**
 * GitAccess.decide for an owner or repository no account or repository could be named: unknown,
 * answered as a missing repository, without asking any store (PostgreSQL's `text` refuses a NUL).
 * The stand-ins die when called, except the lookups of valid names, which find nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { anonymous, couldNameRepository, deployKey, GitAccess, layer as gitAccessLayer, signed } from "../../src/git/GitAccess.ts"
import { NotFound } from "../../src/errors.ts"
import { QuotaEnforcement } from "../../src/quota/QuotaEnforcement.ts"
import { Repositories } from "../../src/repo/Repositories.ts"
import { RepositoryRedirectStore } from "../../src/repo/RepositoryRedirectStore.ts"
import { RepositoryStore } from "../../src/repo/RepositoryStore.ts"
import { newAccount, type User } from "../../src/user/User.ts"
import { UserStore } from "../../src/user/UserStore.ts"

const bob: User = { id: 2, lowerName: "bob", ...newAccount({ name: "bob", kind: "individual", createdAt: 0 }) }

const setup = () => {
  const lookups: Array<string> = []
  const live = gitAccessLayer.pipe(Layer.provide(Layer.mergeAll(
    Layer.mock(Repositories, {
      accessible: (_viewer, owner, repo) =>
        Effect.suspend(() => {
          lookups.push(`${owner}/${repo}`)
          return Effect.fail(new NotFound({ message: "repository does not exist" }))
        })
    }),
    Layer.mock(RepositoryStore, {
      find: (owner, repo) => Effect.sync(() => (lookups.push(`${owner}/${repo}`), Option.none()))
    }),
    Layer.mock(UserStore, { findByName: (name) => Effect.sync(() => (lookups.push(name), Option.none())) }),
    Layer.mock(RepositoryRedirectStore, {}),
    Layer.mock(QuotaEnforcement, {})
  )))
  return { lookups, live }
}

const unnameable: ReadonlyArray<readonly [string, string]> = [
  ["alice", "pub\u0000"],
  ["alice\u0000", "pub"],
  ["alice", ""],
  ["", "pub"],
  ["alice", "a/b"],
  ["al ice", "pub"],
  ["alice", "x".repeat(101)],
  ["a".repeat(41), "pub"],
  ["alice", "pub\ud800"]
]

describe("GitAccess and names nothing can have", () => {
  it("couldNameRepository follows the user and repository name rules", () => {
    for (const [owner, repo] of unnameable) assert.isFalse(couldNameRepository(owner, repo), JSON.stringify([owner, repo]))
    for (const [owner, repo] of [["alice", "pub"], ["Alice", "Pub.Site"], ["a-b.c_d", "_x-y.z"], ["a".repeat(40), "x".repeat(100)]] as const) {
      assert.isTrue(couldNameRepository(owner, repo), `${owner}/${repo}`)
    }
  })

  it.effect("is a missing repository for every caller, decided without a lookup", () => {
    const { lookups, live } = setup()
    return Effect.gen(function*() {
      const access = yield* GitAccess
      const user = signed({ user: bob, method: "basic-password", scopes: Option.none() })
      const key = deployKey(7, [{ repositoryId: 1, readOnly: false }])
      for (const [owner, repo] of unnameable) {
        for (const operation of ["read", "write"] as const) {
          assert.deepStrictEqual(yield* access.decide(anonymous, owner, repo, operation), { kind: "unauthorized" })
          assert.deepStrictEqual(yield* access.decide(user, owner, repo, operation), { kind: "not-found" })
          assert.deepStrictEqual(yield* access.decide(key, owner, repo, operation), { kind: "not-found" })
        }
      }
      assert.deepStrictEqual(lookups, [])
      // The same answers as for a valid name that is not there, which is looked up.
      assert.deepStrictEqual(yield* access.decide(anonymous, "alice", "nothing", "read"), { kind: "unauthorized" })
      assert.deepStrictEqual(yield* access.decide(user, "alice", "nothing", "read"), { kind: "not-found" })
      assert.deepStrictEqual(yield* access.decide(key, "alice", "nothing", "read"), { kind: "not-found" })
      assert.deepStrictEqual(lookups, ["alice/nothing", "alice/nothing", "alice/nothing", "alice"])
    }).pipe(Effect.provide(live))
  })
})
