/**
 * Repository units: the parts of a repository a team grants access to, one level per unit.
 * The order is Forgejo's `AllRepoUnitTypes` (its unit type ids 1..10). [models/unit/unit.go]
 */
import { Schema } from "effect"
import type { AccessMode } from "./AccessMode.ts"

export const unitKeys = [
  "repo.code",
  "repo.issues",
  "repo.pulls",
  "repo.releases",
  "repo.wiki",
  "repo.ext_wiki",
  "repo.ext_issues",
  "repo.projects",
  "repo.packages",
  "repo.actions"
] as const

export const UnitKey = Schema.Literals(unitKeys)
export type UnitKey = typeof UnitKey.Type

/** Units a new repository gets (Forgejo's `DefaultRepoUnits`): all but the external tracker and wiki. */
export const defaultRepoUnits: ReadonlyArray<UnitKey> = unitKeys.filter((unit) => !isExternalUnit(unit))

/** The external tracker and wiki, which teams may only ever read. */
export function isExternalUnit(unit: UnitKey): boolean {
  return unit === "repo.ext_issues" || unit === "repo.ext_wiki"
}

/** Forgejo's `TypeFromKey`: a unit key matched case-insensitively, `undefined` when unknown. */
export const unitKeyOf = (text: string): UnitKey | undefined => {
  const lower = text.toLowerCase()
  return unitKeys.find((unit) => unit === lower)
}

/** Per-unit levels; a unit without an entry has no row (and so `none`). */
export type UnitModes = Readonly<Partial<Record<UnitKey, AccessMode>>>

/** The units with entries, in unit order. */
export const unitsIn = (modes: UnitModes): ReadonlyArray<UnitKey> => unitKeys.filter((unit) => modes[unit] !== undefined)

/** Unit modes built unit by unit, in unit order; `undefined` leaves a unit without a row. */
export const unitModesOf = (modeOf: (unit: UnitKey) => AccessMode | undefined): UnitModes => {
  const modes: Partial<Record<UnitKey, AccessMode>> = {}
  for (const unit of unitKeys) {
    const mode = modeOf(unit)
    if (mode !== undefined) modes[unit] = mode
  }
  return modes
}
