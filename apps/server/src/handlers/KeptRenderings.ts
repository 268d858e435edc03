/**
 * What is made of a repository as callers of one kind of access see it (its answer, its JSON text),
 * kept on the repository object it was made from. The store hands out the same object while the
 * repository's and its owner's rows are unchanged (UnchangedRows: lookups and search pages alike),
 * so a repository many requests show is rendered, serialized and tagged once per change and per
 * kind of access rather than once per request.
 *
 * Kept in a WeakMap: a rendering lives as long as the store keeps its repository.
 */
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import type { Repository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { accessVariant } from "../wire/Repository.ts"

interface Kept<T> {
  /** The owner the renderings show (the store already gives a new repository object when it changes). */
  readonly owner: User
  readonly byAccess: Map<string, T>
}

/**
 * `make(item, kept)` once per repository object, owner and kind of access; `kept` tells `make`
 * whether what it makes will be used again. A fork's shows its base too, which is read anew for
 * every request: made each time.
 */
export const keptPerRepository = <T>(make: (item: AccessibleRepository, kept: boolean) => T) => {
  const kept = new WeakMap<Repository, Kept<T>>()
  return (item: AccessibleRepository): T => {
    if (item.parent !== undefined) return make(item, false)
    let entry = kept.get(item.repository)
    if (entry === undefined || entry.owner !== item.owner) {
      entry = { owner: item.owner, byAccess: new Map() }
      kept.set(item.repository, entry)
    }
    const variant = accessVariant(item.access)
    const known = entry.byAccess.get(variant)
    if (known !== undefined) return known
    const fresh = make(item, true)
    entry.byAccess.set(variant, fresh)
    return fresh
  }
}
