/** `POST /repos/migrate` (api-facts §4.12), with the source's LFS objects when `lfs` is set. */
import { join } from "node:path"
import { Effect, Option } from "effect"
import { cloneCredentials } from "@kiln/domain/repo/MigrationSource"
import { UserStore } from "@kiln/domain/user/UserStore"
import { GitTransfers } from "@kiln/domain/git/GitTransfers"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { repositoryPath } from "@kiln/git"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import * as LfsMigration from "../lfs/LfsMigration.ts"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { requireWithinQuota } from "../http/QuotaGate.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const MigrateHandlers = HandlerGroup.group(Api, "repositoryMigrate", [ApiErrors, GitTransfers, QuotaEnforcement], Effect.fnUntraced(function*(handlers) {
  const { repositories, errors, failure, render } = yield* makeRepoRequests
  const users = yield* UserStore
  const config = yield* KilnConfig
  const lfs = yield* LfsMigration.make

  return handlers.handle("repoMigrate", ({ payload }) =>
    Effect.gen(function*() {
      const principal = yield* requireSignedIn
      // The migration counts against its owner (`repo_owner`, else `uid`, else the caller); an
      // unknown owner is the migration's own 422.
      const owner = payload.repo_owner !== undefined && payload.repo_owner !== ""
        ? yield* users.findByName(payload.repo_owner)
        : payload.uid !== undefined && payload.uid !== 0
        ? yield* users.findById(payload.uid)
        : Option.some(principal.user)
      if (Option.isSome(owner)) yield* requireWithinQuota(owner.value, "size:repos:all")
      const migrated = yield* repositories.migrate(principal.user, {
        cloneAddr: payload.clone_addr,
        repoName: payload.repo_name,
        repoOwner: payload.repo_owner,
        uid: payload.uid,
        authUsername: payload.auth_username,
        authPassword: payload.auth_password,
        authToken: payload.auth_token,
        mirror: payload.mirror,
        private: payload.private,
        description: payload.description
      }).pipe(Effect.mapError((error) => {
        if (error._tag !== "TransferFailure") return failure(error)
        // Forgejo's handleMigrateError texts.
        return error.reason === "auth"
          ? errors.validation(`Authentication failed: ${error.message}.`)
          : errors.validation(`Migration failed: ${error.message}.`)
      }))
      // `lfs: true`: the source's LFS objects too, or no migration at all (Forgejo deletes the repository).
      if (payload.lfs === true && config.lfs.enabled && /^https?:\/\//.test(migrated.repository.originalUrl)) {
        const gitDir = repositoryPath(join(config.dataDir, "repositories"), { owner: migrated.owner.name, name: migrated.repository.name })
        yield* lfs.fetchObjects(migrated, principal.user, gitDir, {
          cloneAddress: migrated.repository.originalUrl,
          endpoint: payload.lfs_endpoint,
          credentials: cloneCredentials({ authUsername: payload.auth_username, authPassword: payload.auth_password, authToken: payload.auth_token })
        }).pipe(Effect.catchTag("LfsMigrationFailed", (failed) =>
          Effect.gen(function*() {
            yield* repositories.remove(principal.user, migrated).pipe(Effect.ignore)
            return yield* Effect.fail(errors.validation(`Migration failed: ${failed.message}.`))
          })))
      }
      return render(migrated)
    }))
}))
