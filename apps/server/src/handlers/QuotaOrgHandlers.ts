/** Spec 4.7 handlers: the organization and its gates come from OrgAssignment. */
import { Effect } from "effect"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { RouteOrganization } from "../http/OrgAssignment.ts"
import { usageHandlers } from "./QuotaUsageHandlers.ts"

export const OrgQuotaHandlers = HandlerGroup.group(Api, "organizationQuota", [KilnConfig], Effect.fnUntraced(function*(handlers) {
  const usage = yield* usageHandlers
  const organization = Effect.map(Effect.service(RouteOrganization), (org) => org.id)

  return handlers
    .handle("orgGetQuota", () => Effect.flatMap(organization, usage.info))
    .handle("orgCheckQuota", ({ query }) => Effect.flatMap(organization, (id) => usage.check(id, query.subject)))
    .handle("orgListQuotaAttachments", ({ query }) => Effect.flatMap(organization, (id) => usage.attachments(id, query)))
    .handle("orgListQuotaPackages", ({ query }) => Effect.flatMap(organization, (id) => usage.packages(id, query)))
    .handle("orgListQuotaArtifacts", ({ query }) => Effect.flatMap(organization, (id) => usage.artifacts(id, query)))
}))
