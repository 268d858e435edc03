import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { type AccessTokenScope, accessTokenScopes } from "../../src/auth/AccessTokenScope.ts"
import {
  type AccountCaller,
  anonymous,
  deployKey,
  deployKeyRefusal,
  type GitOperation,
  httpAccountRefusal,
  repositoryRefusal,
  signed
} from "../../src/git/GitAccess.ts"
import { type AccessMode, accessModes, atLeast } from "../../src/org/AccessMode.ts"
import type { RepositoryAccess } from "../../src/org/RepositoryAccess.ts"
import { unitKeys, type UnitKey } from "../../src/org/Unit.ts"
import { newRepository } from "../../src/repo/Repository.ts"
import type { OwnedRepository } from "../../src/repo/Repository.ts"
import { newAccount, type User } from "../../src/user/User.ts"
import { visibilities } from "../../src/user/Visibility.ts"

const account = (fields: Partial<User>): User => ({
  id: 1,
  lowerName: (fields.name ?? "u").toLowerCase(),
  ...newAccount({ name: "u", kind: "individual", createdAt: 0 }),
  ...fields
})

const target = (fields: { isPrivate: boolean; isArchived: boolean; isMirror: boolean; visibility: User["visibility"] }): OwnedRepository => ({
  owner: account({ id: 50, name: "owner", visibility: fields.visibility }),
  repository: {
    id: 9,
    lowerName: "r",
    numReleases: 0,
    ...newRepository({
      ownerId: 50,
      name: "r",
      description: "",
      defaultBranch: "main",
      wikiBranch: "main",
      isPrivate: fields.isPrivate,
      isEmpty: false,
      isArchived: fields.isArchived,
      isMirror: fields.isMirror
    }, 0)
  }
})

const accessAt = (code: AccessMode, mode: AccessMode = "none"): RepositoryAccess => ({
  mode,
  units: Object.fromEntries(unitKeys.map((unit) => [unit, unit === "repo.code" ? code : "none"])) as Record<UnitKey, AccessMode>,
  hasAccess: code !== "none" || mode !== "none"
})

const callerArb: fc.Arbitrary<AccountCaller> = fc.oneof(
  fc.constant(anonymous),
  fc.record({
    method: fc.constantFrom<"token" | "basic-token" | "basic-password">("token", "basic-token", "basic-password"),
    scopes: fc.option(fc.subarray<AccessTokenScope>([...accessTokenScopes]), { nil: undefined })
  }).map(({ method, scopes }) =>
    signed({
      user: account({ id: 2, name: "caller" }),
      method: scopes === undefined ? "basic-password" : method,
      scopes: Option.fromUndefinedOr(scopes)
    })
  )
)

const caseArb = fc.record({
  caller: callerArb,
  operation: fc.constantFrom<GitOperation>("read", "write"),
  isPrivate: fc.boolean(),
  isArchived: fc.boolean(),
  isMirror: fc.boolean(),
  visibility: fc.constantFrom(...visibilities),
  code: fc.constantFrom(...accessModes),
  mode: fc.constantFrom(...accessModes)
})

describe("GitAccess rules", () => {
  it("reading a public repository of a public owner needs nothing", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const repo = target({ ...c, isPrivate: false, visibility: "public" })
      assert.isUndefined(repositoryRefusal(c.caller, repo, accessAt(c.code, c.mode), "read"))
    }))
  })

  it("nothing pushes to an archived repository or a mirror, and nobody anonymous pushes", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const decision = repositoryRefusal(c.caller, target(c), accessAt(c.code, c.mode), "write")
      if (c.isArchived || c.isMirror || c.caller._tag === "Anonymous") assert.isDefined(decision)
    }))
  })

  it("a push is allowed exactly to callers with write access (or admin) and, for tokens, write:repository", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const repo = target({ ...c, isArchived: false, isMirror: false })
      const decision = repositoryRefusal(c.caller, repo, accessAt(c.code, c.mode), "write")
      const scopesAllow = c.caller._tag === "Signed" && Option.match(c.caller.principal.scopes, {
        onNone: () => true,
        onSome: (scopes) =>
          (scopes.includes("write:repository") || scopes.includes("all")) &&
          (!scopes.includes("public-only") || (!c.isPrivate && c.visibility === "public"))
      })
      const expected = scopesAllow && (atLeast(c.code, "write") || atLeast(c.mode, "admin"))
      assert.strictEqual(decision === undefined, expected)
    }))
  })

  it("over HTTP refuses exactly an enabled account that must change its password (a disabled one is decide's)", () => {
    fc.assert(fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (mustChangePassword, prohibitLogin, active) => {
      const refusal = httpAccountRefusal(account({ mustChangePassword, prohibitLogin, active }))
      assert.strictEqual(refusal, mustChangePassword && !prohibitLogin && active ? "Update your password" : undefined)
    }))
  })

  it("words the reason of each refusal", () => {
    const owner = signed({ user: account({ id: 2 }), method: "basic-password", scopes: Option.none() })
    const repo = (fields: Partial<{ isPrivate: boolean; isArchived: boolean; isMirror: boolean }>) =>
      target({ isPrivate: true, isArchived: false, isMirror: false, visibility: "public", ...fields })
    assert.deepStrictEqual(repositoryRefusal(owner, repo({ isArchived: true }), accessAt("owner", "owner"), "write"), {
      kind: "forbidden",
      reason: "archived"
    })
    assert.deepStrictEqual(repositoryRefusal(owner, repo({ isMirror: true }), accessAt("owner", "owner"), "write"), {
      kind: "forbidden",
      reason: "mirror"
    })
    assert.deepStrictEqual(repositoryRefusal(owner, repo({}), accessAt("read"), "write"), { kind: "forbidden", reason: "no-write-access" })
    assert.deepStrictEqual(repositoryRefusal(owner, repo({}), accessAt("none"), "read"), { kind: "not-found" })
    assert.deepStrictEqual(repositoryRefusal(anonymous, repo({}), accessAt("none"), "read"), { kind: "unauthorized" })
    const readToken = signed({ user: account({ id: 2 }), method: "token", scopes: Option.some(["read:repository"]) })
    assert.deepStrictEqual(repositoryRefusal(readToken, repo({}), accessAt("write"), "write"), { kind: "forbidden", reason: "token-scope" })
    const publicOnly = signed({ user: account({ id: 2 }), method: "token", scopes: Option.some(["read:repository", "public-only"]) })
    assert.deepStrictEqual(repositoryRefusal(publicOnly, repo({}), accessAt("read"), "read"), {
      kind: "forbidden",
      reason: "public-only-token"
    })
  })

  it("a deploy key opens only the repositories it was added to, and pushes only where it may write", () => {
    fc.assert(fc.property(caseArb, fc.option(fc.boolean(), { nil: undefined }), (c, grant) => {
      const key = deployKey(7, grant === undefined ? [{ repositoryId: 10, readOnly: false }] : [{ repositoryId: 9, readOnly: grant }])
      const decision = deployKeyRefusal(key, target(c), c.operation)
      if (grant === undefined) assert.deepStrictEqual(decision, { kind: "not-found" })
      else if (c.operation === "read") assert.isUndefined(decision)
      else assert.strictEqual(decision === undefined, !grant && !c.isArchived && !c.isMirror)
    }))
  })
})
