/**
 * The 200 answers of `GET /repos/{owner}/{repo}`, kept on the repository object they were rendered
 * from (KeptRenderings): that work was a fifth of the request's CPU on the event loop, which is what
 * limits the route.
 */
import type { HttpServerResponse } from "effect/http"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { jsonAnswer } from "../http/conditional/KeptJsonAnswer.ts"
import type { RepositoryJson } from "../wire/Repository.ts"
import { keptPerRepository } from "./KeptRenderings.ts"

/** The answer of `render(item)` with its `Last-Modified`, rendered once per repository object and access. */
export const makeRepositoryAnswers = (
  render: (item: AccessibleRepository) => RepositoryJson
): (item: AccessibleRepository) => HttpServerResponse.HttpServerResponse =>
  keptPerRepository((item, kept) => jsonAnswer(render(item), item.repository.updatedAt, kept))
