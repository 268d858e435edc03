/**
 * `DELETE /admin/users/{u}?purge=true`, as Forgejo: the account's repositories are deleted, it
 * leaves its organizations, and its packages are deleted, in that order. Leaving fails for the last
 * owner of an organization.
 */
import { Effect, Layer, Option } from "effect"
import { Conflict } from "../errors.ts"
import { Organizations } from "../org/Organizations.ts"
import { OrgMembers } from "../org/OrgMembers.ts"
import { Packages } from "../package/Packages.ts"
import { pageRequest } from "../Paging.ts"
import { Repositories } from "../repo/Repositories.ts"
import { AccountPurgers } from "./UserAccounts.ts"
import type { User } from "./User.ts"

const firstPage = pageRequest(1, 50)

export const layer = Layer.effect(
  AccountPurgers,
  Effect.gen(function*() {
    const repositories = yield* Repositories
    const organizations = yield* Organizations
    const members = yield* OrgMembers
    const packages = yield* Packages

    // Each pass deletes what the first page shows, until nothing is left.
    const purgeRepositories = (user: User) =>
      Effect.gen(function*() {
        while (true) {
          const owned = yield* repositories.listForOwner(Option.some(user), user, true, firstPage)
          if (owned.items.length === 0) return
          for (const item of owned.items) {
            yield* repositories.remove(user, item).pipe(Effect.mapError((error) => new Conflict({ message: error.message })))
          }
        }
      })

    const leaveOrganizations = (user: User) =>
      Effect.gen(function*() {
        while (true) {
          const joined = yield* organizations.listForUser(Option.some(user), user, firstPage)
          if (joined.items.length === 0) return
          for (const organization of joined.items) yield* members.remove(organization, user)
        }
      })

    // A blob that cannot be moved aside is the server's failure (500); the rows are then kept.
    const purgePackages = (user: User) => Effect.orDie(packages.removeAllOf(user))

    return [purgeRepositories, leaveOrganizations, purgePackages]
  })
)
