/**
 * The 200 answers of `GET /users/{username}`, kept on the account object they were rendered from, as
 * RepositoryAnswers keeps a repository's: the store hands out the same object while the account's
 * row is unchanged (UserStore's `findByName`), so an account many clients look up is rendered,
 * serialized, dated and tagged once per change and per kind of viewer rather than once per request.
 *
 * Kept in a WeakMap: an answer lives as long as the store keeps its account.
 */
import type { HttpServerResponse } from "effect/http"
import type { User } from "@kiln/domain/user/User"
import { jsonAnswer } from "../http/conditional/KeptJsonAnswer.ts"
import { accessOf, type SiteUrls, toUserJson, type Viewer } from "../wire/User.ts"

/** What a viewer sees of an account depends on these alone (toUserJson). */
type Variant = "anonymous" | "signed" | "privileged"

export const makeUserAnswers = (urls: SiteUrls) => {
  const kept = new WeakMap<User, Map<Variant, HttpServerResponse.HttpServerResponse>>()

  return (viewer: Viewer, user: User): HttpServerResponse.HttpServerResponse => {
    const access = accessOf(viewer, user)
    const variant: Variant = access.privileged ? "privileged" : access.signed ? "signed" : "anonymous"
    let answers = kept.get(user)
    if (answers === undefined) {
      answers = new Map()
      kept.set(user, answers)
    }
    const known = answers.get(variant)
    if (known !== undefined) return known
    const fresh = jsonAnswer(toUserJson(user, urls, access), user.updatedAt, true)
    answers.set(variant, fresh)
    return fresh
  }
}
