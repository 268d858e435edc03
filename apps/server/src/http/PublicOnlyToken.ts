/**
 * Forgejo's `checkTokenPublicOnly` for handlers that resolve their resource themselves: a token
 * with the `public-only` scope is refused (403) a repository, organization or user that is not
 * public, with the text of the category the route belongs to.
 */
import { Effect, Option } from "effect"
import {
  isPublicOnly,
  PUBLIC_ONLY_ORG_MESSAGE,
  PUBLIC_ONLY_PACKAGE_MESSAGE,
  PUBLIC_ONLY_REPO_MESSAGE,
  PUBLIC_ONLY_USER_MESSAGE
} from "@kiln/domain/auth/AccessTokenScope"
import { isPublicRepository } from "@kiln/domain/repo/Repositories"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { ApiErrors, type ApiForbidden } from "./ApiErrors.ts"
import { Caller } from "./Caller.ts"

/** Whether the caller signed in with a token limited to public resources. */
export const callerIsPublicOnly: Effect.Effect<boolean, never, Caller> = Effect.map(
  Effect.service(Caller),
  (caller) => Option.exists(Option.flatMap(caller.principal, (principal) => principal.scopes), isPublicOnly)
)

const refuseWhen = (refused: boolean, message: string): Effect.Effect<void, ApiForbidden, Caller | ApiErrors> =>
  refused
    ? Effect.flatMap(callerIsPublicOnly, (publicOnly) =>
      publicOnly ? Effect.flatMap(Effect.service(ApiErrors), (errors) => Effect.fail(errors.forbidden(message))) : Effect.void)
    : Effect.void

export const refusePublicOnlyRepository = (target: OwnedRepository) =>
  refuseWhen(!isPublicRepository(target), PUBLIC_ONLY_REPO_MESSAGE)

export const refusePublicOnlyOrganization = (organization: User) =>
  refuseWhen(organization.visibility !== "public", PUBLIC_ONLY_ORG_MESSAGE)

/**
 * The packages of an owner that is not public (Forgejo refuses only private owners; a limited
 * owner's packages are not public either).
 */
export const refusePublicOnlyPackageOwner = (owner: User) =>
  refuseWhen(owner.visibility !== "public", PUBLIC_ONLY_PACKAGE_MESSAGE)

/** Routes of the user category: only individuals are checked (an organization passes, as in Forgejo). */
export const refusePublicOnlyUser = (user: User) =>
  refuseWhen(user.kind === "individual" && user.visibility !== "public", PUBLIC_ONLY_USER_MESSAGE)
