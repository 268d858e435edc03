/** `GET /api/v1/packages/{owner}`: the owner's package versions, newest first [routers/api/v1/packages/package.go]. */
import { Effect, Option } from "effect"
import { Packages } from "@kiln/domain/package/Packages"
import { UserStore } from "@kiln/domain/user/UserStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser } from "../http/Caller.ts"
import { refusePublicOnlyPackageOwner } from "../http/PublicOnlyToken.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { toPackageJson } from "../wire/Package.ts"
import { siteUrls, userJsonFor } from "../wire/User.ts"

export const PackageHandlers = HandlerGroup.group(Api, "package", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const packages = yield* Packages
  const users = yield* UserStore
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)

  return handlers.handle("listPackages", ({ params, query }) =>
    Effect.gen(function*() {
      const viewer = yield* currentUser
      const owner = yield* users.findByName(params.owner)
      if (Option.isNone(owner)) return yield* errors.notFoundPlain(`user does not exist [uid: 0, name: ${params.owner}]`)
      yield* refusePublicOnlyPackageOwner(owner.value)
      const page = pageFromQuery(query)
      const type = (query.type ?? "").trim()
      if (type !== "" && type !== "all" && type !== "generic") {
        // Kiln keeps no package of another type: an empty page.
        yield* setPagingHeaders({ total: 0, page })
        return []
      }
      const result = yield* packages.list(viewer, owner.value, { type: type === "generic" ? "generic" : undefined, keyword: (query.q ?? "").trim() }, page).pipe(
        Effect.mapError((error) => errors.forbidden(error.message))
      )
      yield* setPagingHeaders({ total: result.total, page })
      return result.items.map((version) => toPackageJson(version, urls, userJsonFor({ user: viewer }, urls)))
    }))
}))
