/**
 * Who may read or push a repository over git: one decision for every transport (smart HTTP, SSH,
 * and the LFS API that rides on them), so that they cannot drift apart. Forgejo's rules, in its
 * order (routers/web/repo/githttp.go, cmd/serv.go with routers/private/serv.go):
 *
 * 1. an account that may not sign in (prohibited, inactive) is refused; one that must change its
 *    password is refused over HTTP only (`httpAccountRefusal`, asked by those transports first);
 * 2. an unknown repository, or one the caller may not see, is hidden; an anonymous caller is asked
 *    to sign in first, so nobody learns whether it exists; an old name of a renamed repository the
 *    caller may see leads on to its current name;
 * 3. a push to an archived repository is refused;
 * 4. reading a public repository of a public owner needs nothing, not even a token scope;
 * 5. anything else needs a signed-in caller; a token needs `read:repository` to read and
 *    `write:repository` to push, and a public-only token stays off private repositories;
 * 6. without read access to the code the repository is hidden; reading without write access, or
 *    any push to a mirror, is refused for a push;
 * 7. a push to an owner over quota is refused (only when quotas are enforced); the LFS API checks
 *    its own subject (`size:git:lfs`) where an object would be added, and asks for no check here.
 *
 * A path's owner or repository that no account or repository could be named (a NUL byte, a slash,
 * a name too long) names nothing: the repository is unknown, decided without asking the stores
 * (PostgreSQL's `text` refuses a NUL, which used to end the request in a 500).
 *
 * The decision is data: each transport words it its own way (an HTTP status, a line on stderr).
 */
import { Context, Effect, Layer, Option, Result } from "effect"
import type { Principal } from "../auth/Authentication.ts"
import { hasScopes, isPublicOnly } from "../auth/AccessTokenScope.ts"
import { atLeast } from "../org/AccessMode.ts"
import type { RepositoryAccess } from "../org/RepositoryAccess.ts"
import { QuotaEnforcement } from "../quota/QuotaEnforcement.ts"
import type { Subject } from "../quota/Subject.ts"
import { isPublicRepository, Repositories } from "../repo/Repositories.ts"
import type { OwnedRepository } from "../repo/Repository.ts"
import { RepositoryRedirectStore } from "../repo/RepositoryRedirectStore.ts"
import { repositoryNameBindingRule } from "../repo/RepositoryName.ts"
import { RepositoryStore } from "../repo/RepositoryStore.ts"
import { isDisabled, type User } from "../user/User.ts"
import { userNameBindingRule } from "../user/UserName.ts"
import { UserStore } from "../user/UserStore.ts"

/** `read`: clone, fetch, archive, LFS download. `write`: push, LFS upload and locks. */
export type GitOperation = "read" | "write"

/** A repository a deploy key opens, and whether only for reading. */
export interface DeployKeyGrant {
  readonly repositoryId: number
  readonly readOnly: boolean
}

/**
 * Who asks, as the transport established it. A deploy key (SSH) belongs to no account: it opens
 * the repositories it was added to, and nothing else, whatever their visibility.
 */
export type GitCaller =
  | { readonly _tag: "Anonymous" }
  | { readonly _tag: "Signed"; readonly principal: Principal }
  | { readonly _tag: "DeployKey"; readonly keyId: number; readonly grants: ReadonlyArray<DeployKeyGrant> }

/** A caller that is an account, or nobody. */
export type AccountCaller = Exclude<GitCaller, { readonly _tag: "DeployKey" }>
export type DeployKeyCaller = Extract<GitCaller, { readonly _tag: "DeployKey" }>

export const anonymous: AccountCaller = { _tag: "Anonymous" }
export const signed = (principal: Principal): AccountCaller => ({ _tag: "Signed", principal })
export const deployKey = (keyId: number, grants: ReadonlyArray<DeployKeyGrant>): DeployKeyCaller => ({
  _tag: "DeployKey",
  keyId,
  grants
})

/** Why a caller who may see the repository is refused the operation. */
export type GitRefusal =
  | "account-disabled"
  | "archived"
  | "mirror"
  | "no-write-access"
  | "token-scope"
  | "public-only-token"
  | "read-only-deploy-key"

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

/**
 * Whether `owner/repo` could name a repository at all: the characters and lengths Forgejo's binding
 * allows for user and repository names (reserved names are left to the lookup).
 */
export const couldNameRepository = (owner: string, repo: string): boolean =>
  userNameBindingRule(owner) === undefined && repositoryNameBindingRule(repo) === undefined

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
    case "read-only-deploy-key":
      return "This deploy key is read-only: it cannot push."
  }
}

/**
 * Over HTTP (git's smart HTTP and the LFS API), Forgejo's web middleware refuses a signed-in
 * account that must change its password before it looks at the repository: 401 with this text
 * (routers/web/web.go, `verifyAuthWithOptions`, for git's user agents). SSH lets it through.
 * A disabled account is left to `decide`, which refuses it with its own text.
 */
export const httpAccountRefusal = (user: User): string | undefined =>
  user.mustChangePassword && !isDisabled(user) ? "Update your password" : undefined

/**
 * Rules 3 to 6 for a repository the caller may see, with `access` as RepositoryAccess computed it;
 * undefined when they allow the operation.
 */
export const repositoryRefusal = (
  caller: AccountCaller,
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

/**
 * The same rules for a deploy key, undefined when they allow the operation. Forgejo's serv: a key
 * not added to this repository opens nothing here (hidden, whatever the repository's visibility).
 */
export const deployKeyRefusal = (
  caller: DeployKeyCaller,
  target: OwnedRepository,
  operation: GitOperation
): GitAccessDecision | undefined => {
  const grant = caller.grants.find((candidate) => candidate.repositoryId === target.repository.id)
  if (grant === undefined) return notFound
  if (operation === "read") return undefined
  if (target.repository.isArchived) return forbidden("archived")
  if (grant.readOnly) return forbidden("read-only-deploy-key")
  if (target.repository.isMirror) return forbidden("mirror")
  return undefined
}

/** The quota a write is checked against: git's pushes `size:repos:all`; `none` for no check. */
export interface GitAccessOptions {
  readonly quotaSubject?: Subject | "none"
}

export class GitAccess extends Context.Service<GitAccess, {
  readonly decide: (
    caller: GitCaller,
    owner: string,
    repo: string,
    operation: GitOperation,
    options?: GitAccessOptions
  ) => Effect.Effect<GitAccessDecision>
}>()("@kiln/domain/git/GitAccess") {}

export const layer: Layer.Layer<
  GitAccess,
  never,
  Repositories | QuotaEnforcement | RepositoryStore | RepositoryRedirectStore | UserStore
> = Layer.effect(
  GitAccess,
  Effect.gen(function*() {
    const repositories = yield* Repositories
    const quotas = yield* QuotaEnforcement
    const store = yield* RepositoryStore
    const redirects = yield* RepositoryRedirectStore
    const users = yield* UserStore

    /** A repository by name or by an old name, whoever may see it: what a deploy key reaches. */
    const located = Effect.fnUntraced(function*(owner: string, repo: string) {
      if (!couldNameRepository(owner, repo)) return Option.none<OwnedRepository>()
      const found = yield* store.find(owner, repo)
      if (Option.isSome(found)) return found
      const account = yield* users.findByName(owner)
      if (Option.isNone(account)) return Option.none<OwnedRepository>()
      const redirect = yield* redirects.find(account.value.id, repo)
      return Option.isSome(redirect) ? yield* store.findById(redirect.value) : Option.none<OwnedRepository>()
    })

    const forDeployKey = Effect.fnUntraced(function*(
      caller: DeployKeyCaller,
      owner: string,
      repo: string,
      operation: GitOperation,
      quotaSubject: Subject | "none"
    ) {
      const found = yield* located(owner, repo)
      if (Option.isNone(found)) return notFound
      const target = found.value
      // The key checks its grants before anything, so a hidden repository stays hidden.
      const refusal = deployKeyRefusal(caller, target, operation)
      if (refusal !== undefined) return refusal
      if (target.owner.name !== owner || target.repository.name !== repo) {
        return { kind: "moved", owner: target.owner.name, repo: target.repository.name } as const
      }
      return yield* afterRules(target, operation, Option.none(), quotaSubject)
    })

    const afterRules = (target: OwnedRepository, operation: GitOperation, pusher: Option.Option<User>, quotaSubject: Subject | "none") =>
      operation === "write" && quotaSubject !== "none"
        ? Effect.map(Effect.result(quotas.require(target.owner, quotaSubject)), (quota): GitAccessDecision =>
          Result.isFailure(quota) ? { kind: "quota-exceeded" } : { kind: "allowed", target, pusher })
        : Effect.succeed<GitAccessDecision>({ kind: "allowed", target, pusher: operation === "write" ? pusher : Option.none() })

    const decide = Effect.fnUntraced(function*(
      caller: GitCaller,
      owner: string,
      repo: string,
      operation: GitOperation,
      options?: GitAccessOptions
    ) {
      const quotaSubject = options?.quotaSubject ?? "size:repos:all"
      if (caller._tag === "DeployKey") return yield* forDeployKey(caller, owner, repo, operation, quotaSubject)
      const user = caller._tag === "Signed" ? Option.some(caller.principal.user) : Option.none<User>()
      // Only a disabled account: Forgejo's `serv` lets one that must change its password use git
      // (over HTTP the transport asked httpAccountRefusal first).
      if (Option.isSome(user) && isDisabled(user.value)) return forbidden("account-disabled")
      // A name nothing can have is unknown, as any repository that does not exist.
      if (!couldNameRepository(owner, repo)) return caller._tag === "Anonymous" ? unauthorized : notFound
      const found = yield* Effect.result(repositories.accessible(user, owner, repo))
      if (Result.isFailure(found)) {
        const { failure } = found
        if (failure._tag === "RepositoryMoved") return { kind: "moved", owner: failure.owner, repo: failure.name } as const
        return caller._tag === "Anonymous" ? unauthorized : notFound
      }
      const { access, ...target } = found.success
      const refusal = repositoryRefusal(caller, target, access, operation)
      if (refusal !== undefined) return refusal
      return yield* afterRules(target, operation, user, quotaSubject)
    })

    return GitAccess.of({ decide })
  })
)
