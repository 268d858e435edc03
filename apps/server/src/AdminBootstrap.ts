/**
 * On a start with no users, create the site administrator named by KILN_ADMIN_*. Processes starting
 * together on one database take turns (a write lock): the first creates it, the others find it.
 */
import { Effect, Layer, Option } from "effect"
import { WriteLocks } from "@kiln/domain/coordination/WriteLocks"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { UserStore } from "@kiln/domain/user/UserStore"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (Option.isNone(config.admin)) return
  const store = yield* UserStore
  const accounts = yield* UserAccounts
  const admin = config.admin.value
  yield* (yield* WriteLocks).withLock("startup:administrator", Effect.gen(function*() {
    if ((yield* store.count("individual")) > 0) return
    const created = yield* accounts.create({
      username: admin.username,
      email: admin.email,
      password: admin.password,
      isAdmin: true,
      mustChangePassword: false
    }).pipe(Effect.catch((error) => Effect.die(new Error(`cannot create the administrator ${admin.username}: ${error.message}`))))
    yield* Effect.logInfo(`created site administrator ${created.name}`)
  }))
}))
