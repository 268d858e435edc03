/**
 * Spec 4.6 handlers. Path names are resolved in Forgejo's order (group, then rule or user), each
 * unknown one a 404 in the plain `{"message","url"}` shape; option bodies are read by hand
 * (see QuotaOptionBody). Statuses: AlreadyExists 409, Invalid 422, NotFound 404 — except an unknown
 * group in a user's new group list, which the domain reports as Invalid (422).
 */
import { Effect, Option } from "effect"
import type { AlreadyExists, Invalid, NotFound } from "@kiln/domain/errors"
import { QuotaService } from "@kiln/domain/quota/QuotaService"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { userNotFound } from "@kiln/domain/user/UserAccounts"
import { UserStore } from "@kiln/domain/user/UserStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { setPagingHeaders } from "../http/Pagination.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import {
  CreateQuotaGroupOptions,
  CreateQuotaRuleOptions,
  EditQuotaRuleOptions,
  SetUserQuotaGroupsOptions,
  toQuotaGroupJson,
  toQuotaInfoJson,
  toQuotaRuleInfoJson
} from "../wire/Quota.ts"
import { readOptionBody } from "../wire/QuotaOptionBody.ts"
import { siteUrls, toUserJson } from "../wire/User.ts"

export const QuotaAdminHandlers = HandlerGroup.group(Api, "adminQuota", [KilnConfig], Effect.fnUntraced(function*(handlers) {
  const quota = yield* QuotaService
  const store = yield* QuotaStore
  const users = yield* UserStore
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)

  const failure = (error: NotFound | AlreadyExists | Invalid) => {
    switch (error._tag) {
      case "NotFound":
        return errors.notFoundPlain(error.message)
      case "AlreadyExists":
        return errors.conflict(error.message)
      case "Invalid":
        return errors.validation(error.message)
    }
  }

  /** Users and organizations alike: both are owners (Forgejo's GetUserByName finds either). */
  const pathOwner = (name: string) =>
    Effect.flatMap(users.findByName(name), (found) =>
      Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(errors.notFoundPlain(userNotFound(name).message)))

  const pathGroup = (name: string) => Effect.mapError(store.getGroup(name), failure)

  return handlers
    .handle("adminListQuotaRules", () =>
      Effect.gen(function*() {
        const rules = yield* store.listRules
        yield* setPagingHeaders({ total: rules.length, page: "all" })
        return rules.map((rule) => toQuotaRuleInfoJson(rule, true))
      }))
    .handleRaw("adminCreateQuotaRule", ({ request }) =>
      Effect.gen(function*() {
        const body = yield* readOptionBody(request, CreateQuotaRuleOptions, errors)
        const rule = yield* quota.createRule({ name: body.name ?? "", limit: body.limit, subjects: body.subjects })
          .pipe(Effect.mapError(failure))
        return toQuotaRuleInfoJson(rule, true)
      }))
    .handle("adminGetQuotaRule", ({ params }) =>
      Effect.map(Effect.mapError(store.getRule(params.quotarule), failure), (rule) => toQuotaRuleInfoJson(rule, true)))
    .handleRaw("adminEditQuotaRule", ({ params, request }) =>
      Effect.gen(function*() {
        // The rule is a path parameter: an unknown one is 404 whatever the body.
        yield* Effect.mapError(store.getRule(params.quotarule), failure)
        const body = yield* readOptionBody(request, EditQuotaRuleOptions, errors)
        const rule = yield* quota.editRule(params.quotarule, { limit: body.limit, subjects: body.subjects })
          .pipe(Effect.mapError(failure))
        return toQuotaRuleInfoJson(rule, true)
      }))
    .handle("adminDEleteQuotaRule", ({ params }) => Effect.mapError(store.deleteRule(params.quotarule), failure))
    .handle("adminListQuotaGroups", () =>
      Effect.gen(function*() {
        const groups = yield* store.listGroups
        yield* setPagingHeaders({ total: groups.length, page: "all" })
        return groups.map((group) => toQuotaGroupJson(group, true))
      }))
    .handleRaw("adminCreateQuotaGroup", ({ request }) =>
      Effect.gen(function*() {
        const body = yield* readOptionBody(request, CreateQuotaGroupOptions, errors)
        const group = yield* quota.createGroup({
          name: body.name ?? "",
          rules: body.rules?.map((rule) => ({ name: rule.name ?? "", limit: rule.limit, subjects: rule.subjects }))
        }).pipe(Effect.mapError(failure))
        return toQuotaGroupJson(group, true)
      }))
    .handle("adminGetQuotaGroup", ({ params }) => Effect.map(pathGroup(params.quotagroup), (group) => toQuotaGroupJson(group, true)))
    .handle("adminDeleteQuotaGroup", ({ params }) => Effect.mapError(store.deleteGroup(params.quotagroup), failure))
    .handle("adminListUsersInQuotaGroup", ({ params }) =>
      Effect.gen(function*() {
        const ids = yield* Effect.mapError(store.listUsersInGroup(params.quotagroup), failure)
        const owners = yield* Effect.forEach(ids, users.findById)
        yield* setPagingHeaders({ total: ids.length, page: "all" })
        // Site admins see every field (Forgejo converts with the doer's view, and the doer is an admin).
        return owners.flatMap((owner) => Option.isSome(owner) ? [toUserJson(owner.value, urls, { signed: true, privileged: true })] : [])
      }))
    .handle("adminAddUserToQuotaGroup", ({ params }) =>
      Effect.gen(function*() {
        yield* pathGroup(params.quotagroup)
        const owner = yield* pathOwner(params.username)
        yield* Effect.mapError(store.addUserToGroup(params.quotagroup, owner.id), failure)
      }))
    .handle("adminRemoveUserFromQuotaGroup", ({ params }) =>
      Effect.gen(function*() {
        yield* pathGroup(params.quotagroup)
        const owner = yield* pathOwner(params.username)
        yield* Effect.mapError(store.removeUserFromGroup(params.quotagroup, owner.id), failure)
      }))
    .handle("adminAddRuleToQuotaGroup", ({ params }) =>
      Effect.mapError(store.addRuleToGroup(params.quotagroup, params.quotarule), failure))
    .handle("adminRemoveRuleFromQuotaGroup", ({ params }) =>
      Effect.mapError(store.removeRuleFromGroup(params.quotagroup, params.quotarule), failure))
    .handleRaw("adminSetUserQuotaGroups", ({ params, request }) =>
      Effect.gen(function*() {
        const owner = yield* pathOwner(params.username)
        const body = yield* readOptionBody(request, SetUserQuotaGroupsOptions, errors)
        // Forgejo: without a `groups` list (absent or null) nothing changes, and the answer is still 204.
        if (body.groups === undefined) return
        yield* Effect.mapError(store.setUserGroups(owner.id, body.groups), failure)
      }))
    .handle("adminGetUserQuota", ({ params }) =>
      Effect.gen(function*() {
        const owner = yield* pathOwner(params.username)
        return toQuotaInfoJson(yield* quota.info(owner.id), true)
      }))
}))
