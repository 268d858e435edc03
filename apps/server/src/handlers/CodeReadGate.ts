/** Forgejo's `reqRepoReader(unit.TypeCode)`: read on the code unit (repository admins and site admins pass). */
import { Effect } from "effect"
import { atLeast } from "@kiln/domain/org/AccessMode"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser } from "../http/Caller.ts"

export const REQUIRE_READER_MESSAGE = "user should have specific read permission or be a repo admin or a site admin"

export const requireCodeRead = (target: AccessibleRepository) =>
  Effect.gen(function*() {
    const viewer = yield* currentUser
    const siteAdmin = viewer._tag === "Some" && viewer.value.isAdmin
    if (siteAdmin || atLeast(target.access.units["repo.code"], "read") || atLeast(target.access.mode, "admin")) return
    const errors = yield* ApiErrors
    return yield* errors.forbidden(REQUIRE_READER_MESSAGE)
  })
