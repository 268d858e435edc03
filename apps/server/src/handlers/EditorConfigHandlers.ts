/** `GET /repos/{o}/{r}/editorconfig/{filepath}` (api-facts §4.10). */
import { Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { GitStorage } from "@kiln/domain/git/GitStorage"
import { definitionOf, EDITORCONFIG_LIMITS, EDITORCONFIG_PATH, EditorConfigMatcher } from "@kiln/domain/repo/EditorConfig"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { forgejoJson } from "../http/ErrorResponses.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const EditorConfigHandlers = HandlerGroup.group(Api, "repositoryEditorConfig", [ApiErrors], Effect.fnUntraced(function*(handlers) {
  const { errors, lookup } = yield* makeRepoRequests
  const git = yield* GitStorage
  const matcher = yield* EditorConfigMatcher

  return handlers.handle("repoGetEditorConfig", ({ params, query }) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      yield* requireCodeRead(target)
      const { repository, owner } = target
      if (repository.isEmpty) return yield* errors.notFound(undefined, "repository is empty")
      const location = { owner: owner.name, name: repository.name }
      const ref = query.ref === undefined || query.ref === "" ? repository.defaultBranch : query.ref
      const commit = yield* git.resolveCommit(location, ref).pipe(Effect.mapError(() => errors.notFound()))
      const file = yield* git.readFile(location, commit.id, EDITORCONFIG_PATH, EDITORCONFIG_LIMITS.maxBytes).pipe(
        Effect.mapError((error) =>
          error._tag === "FileTooLarge"
            ? errors.validation(`.editorconfig is ${error.size} bytes, more than the limit of ${error.limit} bytes`)
            : errors.notFound()
        )
      )
      if (Option.isNone(file)) return yield* errors.notFound()
      // Past the limits or too slow to match: the file is refused (422), never left to hold the server.
      const properties = yield* matcher.propertiesFor(file.value, params.filepath).pipe(
        Effect.mapError((error) => error._tag === "EditorConfigBusy" ? error : errors.validation(error.message))
      )
      return definitionOf(properties)
    }).pipe(
      // Too many lookups waiting: busy for now, an answer with a header like markdown's.
      Effect.catchTag("EditorConfigBusy", (busy) =>
        Effect.succeed(
          forgejoJson({ message: busy.message, url: errors.url }, 503).pipe(
            HttpServerResponse.setHeader("retry-after", String(busy.retryAfterSeconds))
          )
        ))
    ))
}))
