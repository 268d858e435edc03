/**
 * The usage handlers every owner shares (see QuotaOrgHandlers for organizations), and those of the
 * signed-in user. Group and rule names are left out of these views (Forgejo shows them to site
 * admins through `GET /admin/users/{username}/quota` only).
 */
import { Effect } from "effect"
import { pageRequest } from "@kiln/domain/Paging"
import { QuotaService } from "@kiln/domain/quota/QuotaService"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { formInt, setPagingHeaders } from "../http/Pagination.ts"
import {
  toQuotaInfoJson,
  toQuotaUsedArtifactJson,
  toQuotaUsedAttachmentJson,
  toQuotaUsedPackageJson
} from "../wire/Quota.ts"

interface PagingValues {
  readonly page?: string | undefined
  readonly limit?: string | undefined
}

/** What the user and organization groups share: each takes the owner's id. */
export const usageHandlers = Effect.gen(function*() {
  const quota = yield* QuotaService
  const store = yield* QuotaStore
  const errors = yield* ApiErrors
  const config = yield* KilnConfig

  /** One page of items with X-Total-Count and Link. */
  const listed = <A, B>(
    list: (ownerId: number, page: ReturnType<typeof pageRequest>) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly total: number }>,
    render: (rootUrl: string, item: A) => B
  ) =>
  (ownerId: number, query: PagingValues) =>
    Effect.gen(function*() {
      const page = pageRequest(formInt(query.page), formInt(query.limit))
      const result = yield* list(ownerId, page)
      yield* setPagingHeaders({ total: result.total, page })
      return result.items.map((item) => render(config.rootUrl, item))
    })

  return {
    info: (ownerId: number) => Effect.map(quota.info(ownerId), (info) => toQuotaInfoJson(info, false)),
    // A missing subject reads as "", which is no subject: 422 like any unknown one.
    check: (ownerId: number, subject: string | undefined) =>
      Effect.mapError(quota.check(ownerId, subject ?? ""), (error) => errors.validation(error.message)),
    attachments: listed(store.listAttachments, toQuotaUsedAttachmentJson),
    packages: listed(store.listPackages, toQuotaUsedPackageJson),
    artifacts: listed(store.listArtifacts, toQuotaUsedArtifactJson)
  }
})

export const UserQuotaHandlers = HandlerGroup.group(Api, "userQuota", [KilnConfig], Effect.fnUntraced(function*(handlers) {
  const usage = yield* usageHandlers
  const errors = yield* ApiErrors
  const signedIn = Effect.map(Effect.provideService(requireSignedIn, ApiErrors, errors), (principal) => principal.user.id)

  return handlers
    .handle("userGetQuota", () => Effect.flatMap(signedIn, usage.info))
    .handle("userCheckQuota", ({ query }) => Effect.flatMap(signedIn, (id) => usage.check(id, query.subject)))
    .handle("userListQuotaAttachments", ({ query }) => Effect.flatMap(signedIn, (id) => usage.attachments(id, query)))
    .handle("userListQuotaPackages", ({ query }) => Effect.flatMap(signedIn, (id) => usage.packages(id, query)))
    .handle("userListQuotaArtifacts", ({ query }) => Effect.flatMap(signedIn, (id) => usage.artifacts(id, query)))
}))
