import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import type { Team } from "../../src/org/Team.ts"
import { packageAccess } from "../../src/package/PackageAccess.ts"
import type { User } from "../../src/user/User.ts"
import type { Visibility } from "../../src/user/Visibility.ts"

const user = (id: number, extra: Partial<User> = {}): User => ({
  id, name: `u${id}`, lowerName: `u${id}`, kind: "individual", fullName: "", email: "", keepEmailPrivate: false,
  loginName: "", sourceId: 0, isAdmin: false, restricted: false, active: true, prohibitLogin: false,
  mustChangePassword: false, visibility: "public", location: "", pronouns: "", keepPronounsPrivate: false,
  website: "", description: "", language: "", maxRepoCreation: -1, allowCreateOrganization: true,
  allowGitHook: false, allowImportLocal: false, repoAdminChangeTeamAccess: false, createdAt: 0, updatedAt: 0,
  lastLoginAt: 0, ...extra
})

const team = (name: string, permission: Team["permission"], packages?: Team["permission"]): Team => ({
  id: 1, orgId: 10, name, lowerName: name.toLowerCase(), description: "", permission, includesAllRepositories: false,
  canCreateOrgRepo: false, units: packages === undefined ? {} : { "repo.packages": packages }
})

const org = (visibility: Visibility) => user(10, { kind: "organization", visibility })

describe("package access", () => {
  it("gives individuals' packages to their owner and readers by visibility", () => {
    const owner = user(1, { visibility: "limited" })
    const access = (caller: Option.Option<User>, of: User = owner) => packageAccess({ caller, owner: of, teams: [], isOrgMember: false })
    assert.strictEqual(access(Option.some(owner)), "owner")
    assert.strictEqual(access(Option.some(user(2))), "read")
    assert.strictEqual(access(Option.none()), "none")
    assert.strictEqual(access(Option.none(), user(1)), "read")
    assert.strictEqual(access(Option.some(user(2)), user(1, { visibility: "private" })), "none")
    assert.strictEqual(access(Option.some(user(1, { active: false, visibility: "limited" }))), "none")
  })

  it("gives organizations' packages by team level, then the packages unit, then visibility", () => {
    const access = (teams: ReadonlyArray<Team>, visibility: Visibility = "public", isOrgMember = teams.length > 0) =>
      packageAccess({ caller: Option.some(user(2)), owner: org(visibility), teams, isOrgMember })
    assert.strictEqual(access([team("Owners", "owner")]), "owner")
    assert.strictEqual(access([team("devs", "write")]), "write")
    assert.strictEqual(access([team("readers", "read", "write")]), "write")
    assert.strictEqual(access([team("readers", "read")]), "read")
    assert.strictEqual(access([]), "read")
    assert.strictEqual(access([], "private"), "none")
    assert.strictEqual(access([team("readers", "none", "none")], "private", true), "read")
    assert.strictEqual(packageAccess({ caller: Option.none(), owner: org("public"), teams: [], isOrgMember: false }), "read")
    assert.strictEqual(packageAccess({ caller: Option.none(), owner: org("limited"), teams: [], isOrgMember: false }), "none")
  })
})
