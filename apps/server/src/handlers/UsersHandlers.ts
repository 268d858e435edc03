/** Users seen by others, the signed-in user, their keys, and access tokens. */
import { Effect, Option } from "effect"
import { AccessTokens } from "@kiln/domain/auth/AccessTokens"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { PublicKeys } from "@kiln/domain/user/PublicKeys"
import type { User } from "@kiln/domain/user/User"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { makeUserAnswers } from "./UserAnswers.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { Caller, currentUser, requireSignedIn } from "../http/Caller.ts"
import { formInt, pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { withLastModified } from "../http/conditional/LastModified.ts"
import { plainJsonResponse } from "../http/PlainJsonResponse.ts"
import { callerIsPublicOnly, refusePublicOnlyUser } from "../http/PublicOnlyToken.ts"
import { toAccessTokenJson } from "../wire/AccessToken.ts"
import { toPublicKeyJson } from "../wire/PublicKey.ts"
import { siteUrls, toUserJson, UserJson, userJsonFor } from "../wire/User.ts"

export const UsersHandlers = HandlerGroup.group(Api, "user", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const accounts = yield* UserAccounts
  const keys = yield* PublicKeys
  const tokens = yield* AccessTokens
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)
  const answerOf = makeUserAnswers(urls)

  const listKeys = (viewer: Option.Option<User>, owner: User | undefined, query: {
    readonly fingerprint?: string | undefined
    readonly page?: string | undefined
    readonly limit?: string | undefined
  }) =>
    Effect.gen(function*() {
      const page = pageFromQuery(query)
      const result = yield* keys.list({
        ownerId: owner?.id,
        fingerprint: query.fingerprint === "" ? undefined : query.fingerprint,
        page
      })
      yield* setPagingHeaders({ total: result.total, page })
      const render = userJsonFor({ user: viewer }, urls)
      return yield* Effect.forEach(result.items, (key) =>
        Effect.gen(function*() {
          const privileged = Option.match(viewer, { onNone: () => false, onSome: (v) => v.isAdmin || v.id === key.ownerId })
          if (!privileged) return toPublicKeyJson(key, config.rootUrl, undefined)
          const keyOwner = owner !== undefined && owner.id === key.ownerId ? owner : Option.getOrUndefined(viewer)
          return toPublicKeyJson(key, config.rootUrl, keyOwner === undefined ? undefined : render(keyOwner))
        }))
    })

  /**
   * Forgejo's user assignment then `reqSelfOrAdmin` on the path user: a user the caller may not see
   * is unknown to them (404, as an unknown name), a visible one is refused (403).
   */
  const selfOrAdmin = (name: string) =>
    Effect.gen(function*() {
      const caller = yield* Caller
      const viewer = Option.map(caller.principal, (principal) => principal.user)
      const refusal = errors.forbidden("doer should be the site admin or be same as the contextUser")
      const notFound = (e: { readonly message: string }) => errors.notFoundPlain(e.message)
      const owner = yield* Effect.mapError(accounts.byName(name), notFound)
      yield* Effect.mapError(accounts.visibleByName(viewer, name), notFound)
      if (Option.isNone(caller.principal)) return yield* refusal
      const doer = caller.principal.value.user
      if (!doer.isAdmin && doer.id !== owner.id) return yield* refusal
      return { owner, principal: caller.principal.value }
    })

  /**
   * Forgejo's `reqBasicOrRevProxyAuth` on the token routes: a password sign-in. A token presented as
   * the Basic password or user name is token authentication (current Forgejo), so a token can never
   * list, mint or revoke tokens, whatever its scopes.
   */
  const requirePasswordSignIn = (principal: Principal) =>
    principal.method === "basic-password" ? Effect.void : Effect.fail(errors.unauthorized("auth required"))

  return handlers
    .handle("userGetCurrent", () =>
      Effect.map(requireSignedIn, (principal) =>
        withLastModified(principal.user.updatedAt)(
          plainJsonResponse(UserJson, toUserJson(principal.user, urls, { signed: true, privileged: true }))
        )))
    .handle("userCurrentListKeys", ({ query }) =>
      Effect.gen(function*() {
        const principal = yield* requireSignedIn
        return yield* listKeys(Option.some(principal.user), principal.user, query)
      }))
    .handle("userSearch", ({ query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const page = pageFromQuery(query)
        const uid = formInt(query.uid)
        const result = yield* accounts.search(viewer, {
          keyword: query.q ?? "",
          id: uid > 0 ? uid : undefined,
          page,
          publicOnly: yield* callerIsPublicOnly
        })
        yield* setPagingHeaders({ total: result.total, page })
        return { data: result.items.map(userJsonFor({ user: viewer }, urls)), ok: true }
      }))
    .handle("userGet", ({ params }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const user = yield* accounts.visibleByName(viewer, params.username).pipe(
          Effect.mapError((e) => errors.notFoundPlain(e.message))
        )
        // After the visibility check (Forgejo checks before it), so that a 403 reveals no hidden account.
        yield* refusePublicOnlyUser(user)
        return answerOf({ user: viewer }, user)
      }))
    .handle("userListKeys", ({ params, query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const owner = yield* accounts.visibleByName(viewer, params.username).pipe(
          Effect.mapError((e) => errors.notFoundPlain(e.message))
        )
        yield* refusePublicOnlyUser(owner)
        return yield* listKeys(viewer, owner, query)
      }))
    .handle("userGetTokens", ({ params, query }) =>
      Effect.gen(function*() {
        const { owner, principal } = yield* selfOrAdmin(params.username)
        yield* requirePasswordSignIn(principal)
        const page = pageFromQuery(query)
        const result = yield* tokens.list(owner, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map((token) => toAccessTokenJson(token))
      }))
    .handle("userCreateToken", ({ params, payload }) =>
      Effect.gen(function*() {
        const { owner, principal } = yield* selfOrAdmin(params.username)
        yield* requirePasswordSignIn(principal)
        const issued = yield* tokens.issue(owner, payload.name, payload.scopes ?? []).pipe(
          // Binding messages (`[Name]: ...`) are 422, as all of Forgejo's; the others its 400s.
          Effect.mapError((error) => error._tag === "Invalid" && error.field !== undefined ? errors.validation(error.message) : errors.badRequest(error.message))
        )
        return toAccessTokenJson(issued.token, issued.secret)
      }))
    .handle("userDeleteAccessToken", ({ params }) =>
      Effect.gen(function*() {
        const { owner, principal } = yield* selfOrAdmin(params.username)
        yield* requirePasswordSignIn(principal)
        yield* tokens.revoke(owner, params.token).pipe(Effect.mapError(() => errors.notFound()))
      }))
}))
