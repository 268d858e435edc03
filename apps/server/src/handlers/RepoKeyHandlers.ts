/**
 * `/repos/{o}/{r}/keys`: a repository's deploy keys. Forgejo's gates in its order: the repository
 * (404, 301 for an old name), a signed-in caller (401), then repository admin or site admin (403).
 * The key's repository (Forgejo's private information) is shown to site admins and the owner.
 */
import { Effect, Option } from "effect"
import { atLeast } from "@kiln/domain/org/AccessMode"
import { uniform } from "@kiln/domain/org/RepositoryAccess"
import type { DeployKey } from "@kiln/domain/repo/DeployKey"
import { DeployKeys } from "@kiln/domain/repo/DeployKeys"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { REQUIRE_ADMIN_MESSAGE } from "@kiln/domain/repo/Repositories"
import type { User } from "@kiln/domain/user/User"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { formInt, pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { idParam } from "../http/TeamAssignment.ts"
import { toDeployKeyJson } from "../wire/DeployKey.ts"
import { toRepositoryJson } from "../wire/Repository.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const RepoKeyHandlers = HandlerGroup.group(Api, "repositoryKeys", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const { lookup, errors, urls } = yield* makeRepoRequests
  const keys = yield* DeployKeys

  const adminRepository = (params: { readonly owner: string; readonly repo: string }) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      const principal = yield* requireSignedIn
      if (!atLeast(target.access.mode, "admin")) return yield* Effect.fail(errors.forbidden(REQUIRE_ADMIN_MESSAGE))
      return { target, doer: principal.user }
    })

  const keysUrl = (target: AccessibleRepository) =>
    `${urls.rootUrl}api/v1/repos/${encodeURIComponent(target.owner.name)}/${encodeURIComponent(target.repository.name)}/keys/`

  /** Forgejo's appendPrivateInformation: the repository, with the key's own permission. */
  const render = (target: AccessibleRepository, doer: User, key: DeployKey) => {
    const privileged = doer.isAdmin || doer.id === target.owner.id
    const repository = privileged
      ? toRepositoryJson({ ...target, access: uniform(key.readOnly ? "read" : "write", target.repository.units.enabled) }, urls)
      : undefined
    return toDeployKeyJson(key, keysUrl(target), repository)
  }

  return handlers
    .handle("repoListKeys", ({ params, query }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* adminRepository(params)
        const page = pageFromQuery(query)
        const keyId = formInt(query.key_id)
        const result = yield* keys.list({
          repositoryId: target.repository.id,
          keyId: keyId === 0 ? undefined : keyId,
          fingerprint: query.fingerprint === undefined || query.fingerprint === "" ? undefined : query.fingerprint,
          page
        })
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map((key) => render(target, doer, key))
      }))
    .handle("repoCreateKey", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target } = yield* adminRepository(params)
        const key = yield* keys.add(target.repository.id, {
          title: payload.title,
          key: payload.key,
          readOnly: payload.read_only ?? false
        }).pipe(Effect.mapError((error) => errors.validation(error.message)))
        // Forgejo answers a new key without the private information.
        return toDeployKeyJson(key, keysUrl(target), undefined)
      }))
    .handle("repoGetKey", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* adminRepository(params)
        const key = yield* keys.get(target.repository.id, idParam(params.id))
        if (Option.isNone(key)) return yield* Effect.fail(errors.notFound())
        return render(target, doer, key.value)
      }))
    .handle("repoDeleteKey", ({ params }) =>
      Effect.gen(function*() {
        const { doer } = yield* adminRepository(params)
        yield* keys.remove(doer, idParam(params.id)).pipe(Effect.mapError((error) => errors.forbidden(error.message)))
      }))
}))
