/**
 * `/admin/unadopted` handlers: Forgejo's statuses (200 with `X-Total-Count`, 204, a bare 404 for
 * anything that is not an unadopted directory; a failing disk is 500).
 */
import { Effect } from "effect"
import type { NotFound } from "@kiln/domain/errors"
import type { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { UnadoptedRepositories } from "@kiln/domain/repo/UnadoptedRepositories"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"

export const AdminUnadoptedHandlers = HandlerGroup.group(Api, "adminUnadopted", [KilnConfig], Effect.fnUntraced(function*(handlers) {
  const unadopted = yield* UnadoptedRepositories
  const errors = yield* ApiErrors

  const failure = (error: NotFound | GitStorageFailure) =>
    error._tag === "NotFound" ? errors.notFound() : errors.internal(error.message)

  return handlers
    .handle("adminUnadoptedList", ({ query }) =>
      Effect.gen(function*() {
        const request = pageFromQuery(query)
        const page = yield* unadopted.list(query.pattern ?? query.query ?? "", request).pipe(Effect.mapError(failure))
        yield* setPagingHeaders({ total: page.total, page: request })
        return page.items
      }))
    .handle("adminAdoptRepository", ({ params }) =>
      unadopted.adopt(params.owner, params.repo).pipe(Effect.asVoid, Effect.mapError(failure)))
    .handle("adminDeleteUnadoptedRepository", ({ params }) =>
      unadopted.remove(params.owner, params.repo).pipe(Effect.mapError(failure)))
}))
