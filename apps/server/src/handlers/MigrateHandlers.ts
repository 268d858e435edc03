/** `POST /repos/migrate` (api-facts §4.12). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const MigrateHandlers = HttpApiBuilder.group(Api, "repositoryMigrate", Effect.fnUntraced(function*(handlers) {
  const { repositories, errors, failure, render } = yield* makeRepoRequests

  return handlers.handle("repoMigrate", ({ payload }) =>
    Effect.gen(function*() {
      const principal = yield* requireSignedIn
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
      return render(migrated)
    }))
}))
