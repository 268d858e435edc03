/**
 * A repository's JSON depends on the caller's access only through `accessVariant`: RepositoryAnswers
 * hands the answer rendered for one caller to every caller of the same variant.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type AccessMode, accessModes } from "@kiln/domain/org/AccessMode"
import { type UnitKey, unitKeys } from "@kiln/domain/org/Unit"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { newRepository } from "@kiln/domain/repo/Repository"
import { newAccount } from "@kiln/domain/user/User"
import { accessVariant, toRepositoryJson } from "../../src/wire/Repository.ts"
import { siteUrls } from "../../src/wire/User.ts"

const mode = fc.constantFrom(...accessModes)
const units = fc.record(Object.fromEntries(unitKeys.map((unit) => [unit, mode])) as Record<UnitKey, fc.Arbitrary<AccessMode>>)
const enabled = fc.subarray([...unitKeys])

const item = (access: AccessibleRepository["access"], enabledUnits: ReadonlyArray<UnitKey>, isPrivate: boolean): AccessibleRepository => {
  const fields = newRepository({
    ownerId: 1,
    name: "Polled",
    description: "a repository",
    defaultBranch: "main",
    wikiBranch: "main",
    isPrivate,
    isEmpty: false
  }, 1_700_000_000)
  return {
    repository: { ...fields, id: 7, lowerName: "polled", numReleases: 0, units: { ...fields.units, enabled: enabledUnits } },
    owner: { ...newAccount({ name: "Owner", kind: "individual", createdAt: 1_600_000_000, email: "owner@example.com" }), id: 1, lowerName: "owner" },
    access
  }
}

describe("accessVariant", () => {
  it("the JSON reads nothing of the access beyond its variant", () => {
    const urls = siteUrls("http://kiln.test/")
    fc.assert(fc.property(mode, units, units, enabled, fc.boolean(), (sharedMode, first, second, enabledUnits, isPrivate) => {
      const a = { mode: sharedMode, units: first, hasAccess: true }
      // Another caller whose access differs in everything but the variant.
      const b = { mode: sharedMode, units: { ...second, "repo.code": first["repo.code"] }, hasAccess: true }
      expect(accessVariant(b)).toBe(accessVariant(a))
      expect(JSON.stringify(toRepositoryJson(item(b, enabledUnits, isPrivate), urls)))
        .toBe(JSON.stringify(toRepositoryJson(item(a, enabledUnits, isPrivate), urls)))
    }))
  })

  it("callers whose JSON differs have different variants", () => {
    const urls = siteUrls("http://kiln.test/")
    fc.assert(fc.property(mode, mode, units, units, enabled, (modeA, modeB, first, second, enabledUnits) => {
      const a = { mode: modeA, units: first, hasAccess: true }
      const b = { mode: modeB, units: second, hasAccess: true }
      const json = (access: typeof a) => JSON.stringify(toRepositoryJson(item(access, enabledUnits, false), urls))
      if (json(a) !== json(b)) expect(accessVariant(a)).not.toBe(accessVariant(b))
    }))
  })
})
