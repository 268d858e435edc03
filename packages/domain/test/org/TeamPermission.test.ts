import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { type AccessMode, accessModes, atLeast, parseAccessMode } from "../../src/org/AccessMode.ts"
import { newOwnerTeam, type Team } from "../../src/org/Team.ts"
import {
  adminTeamUnits,
  applyTeamEdit,
  minUnitAccessMode,
  permissionForNewTeam,
  teamUnitNames,
  teamUnitsMap,
  teamView,
  UNITS_REQUIRED_MESSAGE,
  unitsFromMap
} from "../../src/org/TeamPermission.ts"
import { isExternalUnit, unitKeyOf, unitKeys } from "../../src/org/Unit.ts"

const isExternal = (key: string) => {
  const unit = unitKeyOf(key)
  return unit !== undefined && isExternalUnit(unit)
}

const derive = (body: Parameters<typeof permissionForNewTeam>[0]) => Effect.runSync(permissionForNewTeam(body))

const team = (fields: Partial<Team>): Team => ({
  id: 7,
  orgId: 3,
  name: "team1",
  lowerName: "team1",
  description: "",
  permission: "write",
  includesAllRepositories: false,
  canCreateOrgRepo: false,
  units: { "repo.code": "write" },
  ...fields
})

const unitKey = fc.constantFrom(...unitKeys)
const level = fc.constantFrom(...accessModes)
const unitsMap = fc.dictionary(unitKey, level, { minKeys: 1 })

describe("team permission from a create body", () => {
  it("TEAM-03: `units` get the team level", () => {
    const derived = derive({ permission: "write", units: ["repo.code", "repo.issues"] })
    assert.deepStrictEqual(derived, { permission: "write", units: { "repo.code": "write", "repo.issues": "write" } })
  })

  it("TEAM-08: a units map lowers the level to its lowest non-none level and is kept as sent", () => {
    const derived = derive({
      permission: "write",
      unitsMap: { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" }
    })
    assert.strictEqual(derived.permission, "read")
    const shown = team({ permission: derived.permission, units: derived.units })
    assert.deepStrictEqual(teamUnitsMap(shown), { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" })
  })

  it("TEAM-10: an admin team gets every unit at admin, the external ones at read; units are ignored", () => {
    const derived = derive({ permission: "admin", units: ["repo.code"] })
    assert.strictEqual(derived.permission, "admin")
    for (const unit of unitKeys) assert.strictEqual(derived.units[unit], isExternalUnit(unit) ? "read" : "admin")
  })

  it("neither units nor a map below admin is Forgejo's `units permission should not be empty`", () => {
    const error = Effect.runSync(Effect.flip(permissionForNewTeam({ permission: "read", units: [], unitsMap: {} })))
    assert.strictEqual(error.message, UNITS_REQUIRED_MESSAGE)
  })

  it("`owner` and unknown levels in a body count as none", () => {
    assert.strictEqual(derive({ permission: "owner", units: ["repo.code"] }).permission, "none")
    assert.strictEqual(derive({ permission: "superuser", units: ["repo.code"] }).permission, "none")
  })

  it("property: below admin, a map yields its minimum over non-external units and exactly its rows", () => {
    fc.assert(fc.property(fc.constantFrom("", "none", "read", "write"), unitsMap, (permission, map) => {
      const derived = derive({ permission, unitsMap: map })
      const expected = minUnitAccessMode(unitsFromMap(map))
      if (atLeast(expected, "admin")) {
        assert.deepStrictEqual(derived.units, adminTeamUnits)
      } else {
        assert.strictEqual(derived.permission, expected)
        assert.deepStrictEqual(derived.units, unitsFromMap(map))
      }
      // `owner` in a body parses as none, like every unknown level.
      const lowest = Object.entries(map)
        .filter(([unit, mode]) => parseAccessMode(mode) !== "none" && !isExternal(unit))
        .map(([, mode]) => accessModes.indexOf(mode))
      assert.strictEqual(accessModes.indexOf(expected), lowest.length === 0 ? 0 : Math.min(...lowest))
    }))
  })

  it("property: at admin the map and units never matter", () => {
    fc.assert(fc.property(fc.option(unitsMap, { nil: undefined }), fc.array(unitKey), (map, units) => {
      assert.deepStrictEqual(derive({ permission: "admin", unitsMap: map, units }), { permission: "admin", units: adminTeamUnits })
    }))
  })
})

describe("the team JSON view", () => {
  it("ORG-01: the Owners team shows every unit at owner", () => {
    const owners: Team = { ...newOwnerTeam(3), id: 1, lowerName: "owners" }
    assert.deepStrictEqual(teamUnitNames(owners), unitKeys)
    assert.deepStrictEqual(Object.values(teamUnitsMap(owners)), unitKeys.map((): AccessMode => "owner"))
    assert.strictEqual(owners.units["repo.ext_issues"], "read")
    assert.strictEqual(owners.units["repo.code"], "owner")
  })

  it("property: admin and owner teams show all units at the team level; others exactly their rows", () => {
    fc.assert(fc.property(level, unitsMap, (permission, map) => {
      const shown = team({ permission, units: unitsFromMap(map) })
      const expected = atLeast(permission, "admin")
        ? Object.fromEntries(unitKeys.map((unit) => [unit, permission]))
        : unitsFromMap(map)
      assert.deepStrictEqual({ ...teamUnitsMap(shown) }, { ...expected })
    }))
  })

  it("orders keys as Forgejo: JSON keys in struct order, units_map keys sorted", () => {
    const view = teamView(team({ units: { "repo.wiki": "read", "repo.code": "write" } }), null)
    assert.deepStrictEqual(Object.keys(view), [
      "id", "name", "description", "organization", "includes_all_repositories", "permission", "units", "units_map",
      "can_create_org_repo"
    ])
    assert.deepStrictEqual(Object.keys(view.units_map), ["repo.code", "repo.wiki"])
  })
})

describe("team edits", () => {
  it("TEAM-04: permission admin replaces the units with the admin rows; includes_all applies with it", () => {
    const edit = applyTeamEdit(team({ includesAllRepositories: true }), {
      name: "teamone",
      description: "team 1",
      permission: "admin",
      includesAllRepositories: false,
      units: ["repo.code", "repo.pulls", "repo.releases"]
    })
    assert.strictEqual(edit.team.permission, "admin")
    assert.strictEqual(edit.team.name, "teamone")
    assert.strictEqual(edit.team.lowerName, "teamone")
    assert.isFalse(edit.team.includesAllRepositories)
    assert.deepStrictEqual(teamUnitNames(edit.team), unitKeys)
    assert.isTrue(edit.permissionChanged && edit.includesAllChanged && edit.unitsReplaced)
  })

  it("TEAM-05: a description-only edit keeps name, level and units", () => {
    const before = team({ units: { "repo.code": "read", "repo.wiki": "none" }, permission: "read" })
    const edit = applyTeamEdit(before, { description: "first team" })
    assert.deepStrictEqual(edit.team, { ...before, description: "first team" })
    assert.isFalse(edit.unitsReplaced)
  })

  it("TEAM-09: a map in an edit lowers the level to its minimum and becomes the rows", () => {
    const edit = applyTeamEdit(team({}), {
      permission: "write",
      unitsMap: { "repo.code": "read", "repo.pulls": "read", "repo.releases": "write" }
    })
    assert.strictEqual(edit.team.permission, "read")
    assert.deepStrictEqual(teamUnitsMap(edit.team), { "repo.code": "read", "repo.pulls": "read", "repo.releases": "write" })
  })

  it("includes_all_repositories without a permission is ignored (Forgejo's quirk)", () => {
    const edit = applyTeamEdit(team({}), { includesAllRepositories: true })
    assert.isFalse(edit.team.includesAllRepositories)
  })

  it("property: the Owners team keeps its level and can always create repositories", () => {
    const owners: Team = { ...newOwnerTeam(3), id: 1, lowerName: "owners" }
    fc.assert(fc.property(fc.constantFrom("", "read", "write", "admin"), fc.boolean(), (permission, canCreate) => {
      const edit = applyTeamEdit(owners, { permission, canCreateOrgRepo: canCreate })
      assert.strictEqual(edit.team.permission, "owner")
      assert.isTrue(edit.team.canCreateOrgRepo)
      assert.isFalse(edit.permissionChanged)
    }))
  })
})
