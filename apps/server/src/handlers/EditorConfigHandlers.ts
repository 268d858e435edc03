/** `GET /repos/{o}/{r}/editorconfig/{filepath}` (api-facts §4.10). */
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GitStorage } from "@kiln/domain/git/GitStorage"
import { definitionOf, EDITORCONFIG_PATH, EditorConfigMatcher } from "@kiln/domain/repo/EditorConfig"
import { Api } from "../api/Api.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

/** Forgejo shows no file larger than this (setting.UI.MaxDisplayFileSize). */
const MAX_DISPLAY_FILE_SIZE = 8 * 1024 * 1024

export const EditorConfigHandlers = HttpApiBuilder.group(Api, "repositoryEditorConfig", Effect.fnUntraced(function*(handlers) {
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
      const file = yield* git.readFile(location, commit.id, EDITORCONFIG_PATH).pipe(Effect.mapError(() => errors.notFound()))
      if (Option.isNone(file) || file.value.byteLength > MAX_DISPLAY_FILE_SIZE) return yield* errors.notFound()
      const properties = yield* matcher.propertiesFor(file.value, params.filepath).pipe(
        Effect.mapError((error) => errors.internal(error.message))
      )
      return definitionOf(properties)
    }))
}))
