/**
 * The 200 answers of `GET /repos/{owner}/{repo}`, kept on the repository object they were rendered
 * from. The store hands out the same object while the repository's and its owner's rows are
 * unchanged (RepositoryStore's `find`), so a repository many clients poll is rendered, serialized and
 * tagged once per change and per kind of access rather than once per request: that work was a fifth
 * of the request's CPU on the event loop, which is what limits the route.
 *
 * Kept in a WeakMap: an answer lives as long as the store keeps its repository.
 */
import type { HttpServerResponse } from "effect/http"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import type { Repository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { jsonAnswer } from "../http/conditional/KeptJsonAnswer.ts"
import { accessVariant, type RepositoryJson } from "../wire/Repository.ts"

interface Kept {
  /** The owner the answers show (the store already gives a new repository object when it changes). */
  readonly owner: User
  readonly byAccess: Map<string, HttpServerResponse.HttpServerResponse>
}

/** The answer of `render(item)` with its `Last-Modified`, rendered once per repository object and access. */
export const makeRepositoryAnswers = (render: (item: AccessibleRepository) => RepositoryJson) => {
  const kept = new WeakMap<Repository, Kept>()

  const answer = (item: AccessibleRepository, reused: boolean) => jsonAnswer(render(item), item.repository.updatedAt, reused)

  return (item: AccessibleRepository): HttpServerResponse.HttpServerResponse => {
    // A fork's answer shows its base too, which is read anew for every request: rendered each time.
    if (item.parent !== undefined) return answer(item, false)
    let entry = kept.get(item.repository)
    if (entry === undefined || entry.owner !== item.owner) {
      entry = { owner: item.owner, byAccess: new Map() }
      kept.set(item.repository, entry)
    }
    const variant = accessVariant(item.access)
    const known = entry.byAccess.get(variant)
    if (known !== undefined) return known
    const fresh = answer(item, true)
    entry.byAccess.set(variant, fresh)
    return fresh
  }
}
