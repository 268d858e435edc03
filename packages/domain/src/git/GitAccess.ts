/**
 * Who may read or push a repository over git: one decision for every transport (smart HTTP, SSH,
 * and the LFS API that rides on them), so that they cannot drift apart. Forgejo's rules, in its
 * order (routers/web/repo/githttp.go, cmd/serv.go with routers/private/serv.go):
 *
 * 1. an account that may not sign in (prohibited, inactive, must change its password) is refused;
 * 2. an unknown repository, or one the caller may not see, is hidden; an anonymous caller is asked
 *    to sign in first, so nobody learns whether it exists; an old name of a renamed repository the
 *    caller may see leads on to its current name;
 * 3. a push to an archived repository is refused;
 * 4. reading a public repository of a public owner needs nothing, not even a token scope;
 * 5. anything else needs a signed-in caller; a token needs `read:repository` to read and
 *    `write:repository` to push, and a public-only token stays off private repositories;
 * 6. without read access to the code the repository is hidden; reading without write access, or
 *    any push to a mirror, is refused for a push;
 * 7. a push to an owner over quota is refused (only when quotas are enforced).
 *
 * The decision is data: each transport words it its own way (an HTTP status, a line on stderr).
 */
import { Context, Effect, Layer, Option, Result } from "effect"
import { Authentication, type Principal } from "../auth/Authentication.ts"
import { hasScopes, isPublicOnly } from "../auth/AccessTokenScope.ts"
import { atLeast } from "../org/AccessMode.ts"
import type { RepositoryAccess } from "../org/RepositoryAccess.ts"
import { QuotaEnforcement } from "../quota/QuotaEnforcement.ts"
import { isPublicRepository, Repositories } from "../repo/Repositories.ts"
import type { OwnedRepository } from "../repo/Repository.ts"
import type { User } from "../user/User.ts"

/** `read`: clone, fetch, archive, LFS download. `write`: push, LFS upload and locks. */
export type GitOperation = "read" | "write"

/** Who asks, as the transport established it. */
export type GitCaller =
  | { readonly _tag: "Anonymous" }
  | { readonly _tag: "Signed"; readonly principal: Principal }

export const anonymous: GitCaller = { _tag: "Anonymous" }
export const signed = (principal: Principal): GitCaller => ({ _tag: "Signed", principal })

/** Why a caller who may see the repository is refused the operation. */
export type GitRefusal =
  | "account-disabled"
  | "archived"
  | "mirror"
  | "no-write-access"
  | "token-scope"
  | "public-only-token"

export type GitAccessDecision =
  /** `pusher`: the account a push is made by (none for a read). */
  | { readonly kind: "allowed"; readonly target: OwnedRepository; readonly pusher: Option.Option<User> }
  /** Sign in first (HTTP: 401 with a challenge). */
  | { readonly kind: "unauthorized" }
  | { readonly kind: "forbidden"; readonly reason: GitRefusal }
  | { readonly kind: "not-found" }
  /** The repository was renamed: the same request goes to its current `owner/repo`. */
  | { readonly kind: "moved"; readonly owner: string; readonly repo: string }
  /** A push to an owner over quota. */
  | { readonly kind: "quota-exceeded" }

const notFound: GitAccessDecision = { kind: "not-found" }
const unauthorized: GitAccessDecision = { kind: "unauthorized" }
const forbidden = (reason: GitRefusal): GitAccessDecision => ({ kind: "forbidden", reason })

/** Forgejo's wording of each refusal (its git HTTP and `serv` texts). */
export const refusalMessage = (reason: GitRefusal): string => {
  switch (reason) {
    case "account-disabled":
      return "Your account is disabled."
    case "archived":
      return "This repository is archived: it takes no pushes."
    case "mirror":
      return "mirror repository is read-only"
    case "no-write-access":
      return "User permission denied"
    case "token-scope":
      return "the token's scope does not allow this"
    case "public-only-token":
      return "token scope is limited to public repos"
  }
}

/**
 * Rules 3 to 6 for a repository the caller may see, with `access` as RepositoryAccess computed it;
 * undefined when they allow the operation.
 */
export const repositoryRefusal = (
  caller: GitCaller,
  target: OwnedRepository,
  access: RepositoryAccess,
  operation: GitOperation
): GitAccessDecision | undefined => {
  const read = operation === "read"
  if (target.repository.isArchived && !read) return forbidden("archived")
  if (read && isPublicRepository(target)) return undefined
  if (caller._tag === "Anonymous") return unauthorized
  const scopes = caller.principal.scopes
  if (Option.isSome(scopes)) {
    if (!hasScopes(scopes.value, [{ category: "repository", level: read ? "read" : "write" }])) return forbidden("token-scope")
    if (isPublicOnly(scopes.value) && !isPublicRepository(target)) return forbidden("public-only-token")
  }
  const code = access.units["repo.code"]
  const admin = atLeast(access.mode, "admin")
  if (!atLeast(code, "read") && !admin) return notFound
  if (!read && !atLeast(code, "write") && !admin) return forbidden("no-write-access")
  if (!read && target.repository.isMirror) return forbidden("mirror")
  return undefined
}

export class GitAccess extends Context.Service<GitAccess, {
  readonly decide: (
    caller: GitCaller,
    owner: string,
    repo: string,
    operation: GitOperation
  ) => Effect.Effect<GitAccessDecision>
}>()("@kiln/domain/git/GitAccess") {}

export const layer: Layer.Layer<GitAccess, never, Authentication | Repositories | QuotaEnforcement> = Layer.effect(
  GitAccess,
  Effect.gen(function*() {
    const authentication = yield* Authentication
    const repositories = yield* Repositories
    const quotas = yield* QuotaEnforcement

    const decide = Effect.fnUntraced(function*(caller: GitCaller, owner: string, repo: string, operation: GitOperation) {
      const user = caller._tag === "Signed" ? Option.some(caller.principal.user) : Option.none<User>()
      // The refusal's text needs no root URL here: only whether there is one counts.
      if (Option.isSome(user) && Option.isSome(authentication.accountRefusal(user.value, "/"))) {
        return forbidden("account-disabled")
      }
      const found = yield* Effect.result(repositories.accessible(user, owner, repo))
      if (Result.isFailure(found)) {
        const { failure } = found
        if (failure._tag === "RepositoryMoved") return { kind: "moved", owner: failure.owner, repo: failure.name } as const
        return caller._tag === "Anonymous" ? unauthorized : notFound
      }
      const { access, ...target } = found.success
      const refusal = repositoryRefusal(caller, target, access, operation)
      if (refusal !== undefined) return refusal
      if (operation === "write" && Result.isFailure(yield* Effect.result(quotas.require(target.owner, "size:repos:all")))) {
        return { kind: "quota-exceeded" } as const
      }
      return { kind: "allowed", target, pusher: operation === "write" ? user : Option.none() } as const
    })

    return GitAccess.of({ decide })
  })
)
