/** One reference changed by a push or by the server: git's `<old> <new> <ref>` triple. */
import { Schema } from "effect"

/** Git's all-zero object id: the "old" side of a creation, the "new" side of a deletion. */
export const ZeroId = "0000000000000000000000000000000000000000"

export const RefUpdate = Schema.Struct({
  /** Full reference name, e.g. `refs/heads/main`, `refs/tags/v1`. */
  ref: Schema.String,
  oldId: Schema.String,
  newId: Schema.String
})
export type RefUpdate = typeof RefUpdate.Type

export type RefUpdateKind = "create" | "update" | "delete"

export const refUpdateKind = (update: RefUpdate): RefUpdateKind =>
  update.oldId === ZeroId ? "create" : update.newId === ZeroId ? "delete" : "update"

/**
 * The updates that turn the `before` reference snapshot into `after` (maps of full ref name to
 * object id), ordered by ref name so that callers see a stable sequence.
 */
export const diffRefs = (
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>
): ReadonlyArray<RefUpdate> => {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort()
  return names.flatMap((ref) => {
    const oldId = before.get(ref) ?? ZeroId
    const newId = after.get(ref) ?? ZeroId
    return oldId === newId ? [] : [{ ref, oldId, newId }]
  })
}
