import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { type AccessMode, accessModes, atLeast } from "../../src/org/AccessMode.ts"
import { repositoryAccess, type RepositoryAccessInput } from "../../src/org/RepositoryAccess.ts"
import { newOwnerTeam, type Team } from "../../src/org/Team.ts"
import { unitKeys, unitModesOf } from "../../src/org/Unit.ts"
import { newAccount, type User } from "../../src/user/User.ts"
import { visibilities } from "../../src/user/Visibility.ts"

const account = (fields: Partial<User>): User => ({
  id: 1,
  lowerName: (fields.name ?? "u").toLowerCase(),
  ...newAccount({ name: "u", kind: "individual", createdAt: 0 }),
  ...fields
})

const ORG_ID = 100
const org = (visibility: User["visibility"]) => account({ id: ORG_ID, name: "org", kind: "organization", visibility })
const caller = account({ id: 2, name: "caller" })
const level = fc.constantFrom(...accessModes)

const teamArb: fc.Arbitrary<Team> = fc.record({
  id: fc.integer({ min: 1, max: 50 }),
  permission: fc.constantFrom<AccessMode>("none", "read", "write", "admin", "owner"),
  owners: fc.boolean(),
  units: fc.dictionary(fc.constantFrom(...unitKeys), level)
}).map(({ id, permission, owners, units }) => ({
  id,
  orgId: ORG_ID,
  name: owners ? "Owners" : `team${id}`,
  lowerName: owners ? "owners" : `team${id}`,
  description: "",
  permission: owners ? "owner" : permission,
  includesAllRepositories: false,
  canCreateOrgRepo: false,
  units: unitModesOf((unit) => units[unit])
}))

const inputArb: fc.Arbitrary<RepositoryAccessInput> = fc.record({
  admin: fc.boolean(),
  restricted: fc.boolean(),
  anonymous: fc.boolean(),
  ownedByOrg: fc.boolean(),
  ownerVisibility: fc.constantFrom(...visibilities),
  isPrivate: fc.boolean(),
  collaboration: fc.option(fc.constantFrom<AccessMode>("read", "write", "admin"), { nil: undefined }),
  teams: fc.array(teamArb, { maxLength: 3 }),
  units: fc.subarray([...unitKeys])
}).map((g) => {
  const owner = g.ownedByOrg ? org(g.ownerVisibility) : account({ id: 50, name: "owner", visibility: g.ownerVisibility })
  const teams = g.anonymous || !g.ownedByOrg ? [] : g.teams
  return {
    caller: g.anonymous ? Option.none() : Option.some(account({ ...caller, isAdmin: g.admin, restricted: g.restricted })),
    owner,
    repository: { id: 9, isPrivate: g.isPrivate, units: g.units },
    collaboration: g.anonymous ? Option.none() : Option.fromNullishOr(g.collaboration),
    teams,
    isOrgMember: teams.length > 0
  }
})

const rank = (mode: AccessMode) => accessModes.indexOf(mode)

describe("repositoryAccess", () => {
  it("property: a site admin is owner on every enabled unit", () => {
    fc.assert(fc.property(inputArb, (input) => {
      fc.pre(Option.isSome(input.caller))
      const admin = Option.map(input.caller, (user) => ({ ...user, isAdmin: true }))
      const access = repositoryAccess({ ...input, caller: admin })
      assert.strictEqual(access.mode, "owner")
      assert.isTrue(access.hasAccess || (input.repository.units ?? []).length === 0)
      for (const unit of input.repository.units ?? []) assert.strictEqual(access.units[unit], "owner")
    }))
  })

  it("property: a signed-in caller who is not restricted never gets less than an anonymous one", () => {
    fc.assert(fc.property(inputArb, (input) => {
      // With no unit enabled Forgejo calls a uniform read "access" but per-unit levels none at all.
      fc.pre(Option.isSome(input.caller) && (input.repository.units ?? []).length > 0)
      const signedIn = Option.map(input.caller, (user) => ({ ...user, restricted: false }))
      const anonymous = repositoryAccess({ ...input, caller: Option.none(), collaboration: Option.none(), teams: [], isOrgMember: false })
      const access = repositoryAccess({ ...input, caller: signedIn })
      assert.isTrue(rank(access.mode) >= rank(anonymous.mode))
      assert.isTrue(access.hasAccess || !anonymous.hasAccess)
      for (const unit of unitKeys) assert.isTrue(rank(access.units[unit]) >= rank(anonymous.units[unit]))
    }))
  })

  it("property: a private repository is hidden without explicit access", () => {
    fc.assert(fc.property(inputArb, (input) => {
      const access = repositoryAccess({
        ...input,
        caller: Option.map(input.caller, (user) => ({ ...user, isAdmin: false })),
        repository: { ...input.repository, isPrivate: true },
        collaboration: Option.none(),
        teams: []
      })
      assert.isFalse(access.hasAccess)
      for (const unit of unitKeys) assert.strictEqual(access.units[unit], "none")
    }))
  })

  it("property: joining a team never lowers access", () => {
    fc.assert(fc.property(inputArb, teamArb, (input, team) => {
      fc.pre(Option.isSome(input.caller) && input.owner.kind === "organization")
      const before = repositoryAccess(input)
      const after = repositoryAccess({ ...input, teams: [...input.teams, team], isOrgMember: true })
      assert.isTrue(rank(after.mode) >= rank(before.mode))
      assert.isTrue(after.hasAccess || !before.hasAccess)
      for (const unit of unitKeys) assert.isTrue(rank(after.units[unit]) >= rank(before.units[unit]))
    }))
  })

  it("property: a restricted caller only gets what a collaboration or a team gives", () => {
    fc.assert(fc.property(inputArb, (input) => {
      const restricted = Option.some(account({ ...caller, restricted: true }))
      const access = repositoryAccess({ ...input, caller: restricted, collaboration: Option.none(), teams: [] })
      assert.isFalse(access.hasAccess)
    }))
  })

  it("property: units the repository does not enable stay none", () => {
    fc.assert(fc.property(inputArb, (input) => {
      const access = repositoryAccess(input)
      for (const unit of unitKeys) {
        if (!(input.repository.units ?? []).includes(unit)) assert.strictEqual(access.units[unit], "none")
      }
    }))
  })

  const base = (fields: Partial<RepositoryAccessInput>): RepositoryAccessInput => ({
    caller: Option.some(caller),
    owner: org("public"),
    repository: { id: 9, isPrivate: false },
    collaboration: Option.none(),
    teams: [],
    isOrgMember: false,
    ...fields
  })

  it("anonymous callers read public repositories of public owners, and nothing else", () => {
    assert.strictEqual(repositoryAccess(base({ caller: Option.none() })).units["repo.code"], "read")
    assert.isFalse(repositoryAccess(base({ caller: Option.none(), owner: org("limited") })).hasAccess)
    assert.isFalse(repositoryAccess(base({ caller: Option.none(), repository: { id: 9, isPrivate: true } })).hasAccess)
  })

  it("a limited owner's public repository is readable by signed-in callers; a private org's only by members", () => {
    assert.strictEqual(repositoryAccess(base({ owner: org("limited") })).units["repo.code"], "read")
    assert.isFalse(repositoryAccess(base({ owner: org("private") })).hasAccess)
    const member = repositoryAccess(base({ owner: org("private"), isOrgMember: true }))
    assert.strictEqual(member.units["repo.code"], "read")
  })

  it("a collaborator of a private org's repository gets exactly the collaboration level", () => {
    const access = repositoryAccess(base({
      owner: org("private"),
      repository: { id: 9, isPrivate: true },
      collaboration: Option.some("write")
    }))
    assert.strictEqual(access.mode, "write")
    assert.strictEqual(access.units["repo.issues"], "write")
    assert.isFalse(atLeast(access.mode, "admin"))
  })

  it("the Owners team and admin teams give owner; a user owner is owner of their repositories", () => {
    const owners: Team = { ...newOwnerTeam(ORG_ID), id: 1, lowerName: "owners" }
    const fromOwners = repositoryAccess(base({ teams: [owners], isOrgMember: true, repository: { id: 9, isPrivate: true } }))
    assert.strictEqual(fromOwners.mode, "owner")
    const adminTeam: Team = { ...owners, id: 2, name: "admins", lowerName: "admins", permission: "admin" }
    assert.strictEqual(repositoryAccess(base({ teams: [adminTeam], isOrgMember: true })).mode, "owner")
    const self = account({ id: 2, name: "caller", visibility: "private" })
    assert.strictEqual(repositoryAccess(base({ owner: self, repository: { id: 9, isPrivate: true } })).mode, "owner")
  })

  it("a read team on a private repository gives its unit rows only", () => {
    const readers: Team = {
      id: 3,
      orgId: ORG_ID,
      name: "readers",
      lowerName: "readers",
      description: "",
      permission: "read",
      includesAllRepositories: true,
      canCreateOrgRepo: false,
      units: { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" }
    }
    const access = repositoryAccess(base({ teams: [readers], isOrgMember: true, repository: { id: 9, isPrivate: true } }))
    assert.strictEqual(access.mode, "read")
    assert.strictEqual(access.units["repo.code"], "read")
    assert.strictEqual(access.units["repo.issues"], "write")
    assert.strictEqual(access.units["repo.wiki"], "none")
    assert.strictEqual(access.units["repo.pulls"], "none")
    assert.isTrue(access.hasAccess)
  })
})
