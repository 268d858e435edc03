/**
 * `/repos/{o}/{r}/hooks`: a repository's webhooks, their test and their deliveries. Forgejo's
 * gates in its order: the repository (404, 301 for an old name), a signed-in caller (401), then
 * repository admin or site admin (403). [routers/api/v1/api.go reqToken, reqAdmin; repo/hook.go]
 */
import { Effect, Option } from "effect"
import { Branches } from "@kiln/domain/git/Branches"
import { atLeast } from "@kiln/domain/org/AccessMode"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { REQUIRE_ADMIN_MESSAGE } from "@kiln/domain/repo/Repositories"
import { WebhookEvents } from "@kiln/domain/webhook/WebhookEvents"
import { Webhooks } from "@kiln/domain/webhook/Webhooks"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { idParam } from "../http/TeamAssignment.ts"
import { makeHookPayloads } from "../webhooks/HookPayloads.ts"
import { makeHookRequests } from "./HookRequests.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

const BRANCH_PREFIX = "refs/heads/"

export const RepoHookHandlers = HandlerGroup.group(Api, "repositoryHooks", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const { lookup, errors } = yield* makeRepoRequests
  const hooks = yield* makeHookRequests
  const webhooks = yield* Webhooks
  const branches = yield* Branches
  const events = yield* WebhookEvents
  const payloads = yield* makeHookPayloads

  /** The repository of the path for one of its admins, and its hook scope. */
  const adminRepository = (params: { readonly owner: string; readonly repo: string }) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      yield* requireSignedIn
      if (!atLeast(target.access.mode, "admin")) return yield* Effect.fail(errors.forbidden(REQUIRE_ADMIN_MESSAGE))
      return { target, scope: { kind: "repository", repositoryId: target.repository.id } as const }
    })

  const hookOf = (params: { readonly owner: string; readonly repo: string; readonly id: string }) =>
    Effect.gen(function*() {
      const { target, scope } = yield* adminRepository(params)
      const hook = yield* Effect.mapError(webhooks.get(scope, idParam(params.id)), () => errors.notFound())
      return { target, hook }
    })

  /** The branch a test push reports: `ref` (a branch name, or `refs/heads/…`) or the default branch. */
  const testBranch = (target: AccessibleRepository, ref: string | undefined) => {
    const given = ref?.trim() ?? ""
    const name = given === "" ? target.repository.defaultBranch : given.startsWith(BRANCH_PREFIX) ? given.slice(BRANCH_PREFIX.length) : given
    return Effect.map(Effect.option(branches.get(target, name)), (branch) => ({ ref: `${BRANCH_PREFIX}${name}`, branch }))
  }

  return handlers
    .handle("repoListHooks", ({ params, query }) =>
      Effect.flatMap(adminRepository(params), ({ scope }) => hooks.list(scope, query)))
    .handle("repoCreateHook", ({ params, payload }) =>
      Effect.flatMap(adminRepository(params), ({ scope }) => hooks.create(scope, payload)))
    .handle("repoGetHook", ({ params }) =>
      Effect.flatMap(adminRepository(params), ({ scope }) => hooks.get(scope, params.id)))
    .handle("repoEditHook", ({ params, payload }) =>
      Effect.flatMap(adminRepository(params), ({ scope }) => hooks.edit(scope, params.id, payload)))
    .handle("repoDeleteHook", ({ params }) =>
      Effect.flatMap(adminRepository(params), ({ scope }) => hooks.remove(scope, params.id)))
    .handle("repoTestHook", ({ params, query }) =>
      Effect.gen(function*() {
        const { target, hook } = yield* hookOf(params)
        const principal = yield* requireSignedIn
        const { ref, branch } = yield* testBranch(target, query.ref)
        // Forgejo loads the ref's commit before anything else: an empty repository or unknown ref has none.
        if (Option.isNone(branch)) return yield* Effect.fail(errors.notFound())
        const event = yield* payloads.testPushEvent(target, principal.user, ref, branch.value)
        yield* events.emitTo({ repositoryId: target.repository.id, ownerId: target.owner.id }, hook, event)
      }))
    .handle("repoListHookDeliveries", ({ params, query }) =>
      Effect.flatMap(hookOf(params), ({ hook }) => hooks.listDeliveries(hook, query)))
    .handle("repoGetHookDelivery", ({ params }) =>
      Effect.flatMap(hookOf(params), ({ hook }) => hooks.getDelivery(hook, params.delivery_id)))
    .handle("repoRedeliverHookDelivery", ({ params }) =>
      Effect.flatMap(hookOf(params), ({ hook }) => hooks.redeliver(hook, params.delivery_id)))
}))
