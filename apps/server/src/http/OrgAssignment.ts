/**
 * Forgejo's `orgAssignment` for `/orgs/{org}/**` and the gates those routes apply after it
 * (api-facts §0.4), as a middleware so that all of it runs before the body is decoded:
 * 1. the organization by name (404 `GetOrgByName`);
 * 2. an organization the caller may not see is 404 `HasOrgOrUserVisible` on every route (Forgejo
 *    checks this on `GET /orgs/{org}` only; Kiln hides it everywhere);
 * 3. a public-only token is refused a non-public organization (403);
 * 4. the endpoint's `OrgGate`: `token` (401 `token is required`), `member` (403 `Must be an
 *    organization member`), `owner` (403 `Must be an organization owner`); site admins pass.
 */
import { Context, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { isPublicOnly } from "@kiln/domain/auth/AccessTokenScope"
import { ORG_HIDDEN_MESSAGE } from "@kiln/domain/org/Organization"
import { Organizations } from "@kiln/domain/org/Organizations"
import { OrgMembers } from "@kiln/domain/org/OrgMembers"
import type { User } from "@kiln/domain/user/User"
import { ApiErrors, ApiForbidden, ApiNotFound, ApiUnauthorized } from "./ApiErrors.ts"
import { Caller, requireSignedIn } from "./Caller.ts"

/** What a route asks of its caller once the organization is known; every step needs a signed-in caller. */
export type OrgGateStep = "token" | "member" | "owner"

/** Declared on endpoints with `.annotate(OrgGate, [...])`; the steps run in order. */
export const OrgGate = Context.Reference<ReadonlyArray<OrgGateStep>>("@kiln/server/OrgGate", { defaultValue: () => [] })

/** The organization named in the path, visible to the caller. */
export class RouteOrganization extends Context.Service<RouteOrganization, User>()("@kiln/server/RouteOrganization") {}

export class OrgAssignment extends HttpApiMiddleware.Service<OrgAssignment, {
  requires: Caller
  provides: RouteOrganization
}>()("@kiln/server/OrgAssignment", { error: [ApiUnauthorized, ApiForbidden, ApiNotFound] }) {}

export const PUBLIC_ORGS_ONLY_MESSAGE = "token scope is limited to public orgs"

export const layer = Layer.effect(
  OrgAssignment,
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const members = yield* OrgMembers
    const errors = yield* ApiErrors
    const signedIn = Effect.provideService(requireSignedIn, ApiErrors, errors)

    return OrgAssignment.of((httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const params = yield* HttpRouter.params
        const caller = yield* Caller
        const viewer = Option.map(caller.principal, (principal) => principal.user)
        const organization = yield* organizations.visibleByName(viewer, params["org"] ?? "").pipe(
          Effect.mapError((error) =>
            error.message === ORG_HIDDEN_MESSAGE ? errors.notFound(ORG_HIDDEN_MESSAGE) : errors.notFound("GetOrgByName", error.message)
          )
        )
        const scopes = Option.flatMap(caller.principal, (principal) => principal.scopes)
        if (Option.isSome(scopes) && isPublicOnly(scopes.value) && organization.visibility !== "public") {
          return yield* errors.forbidden(PUBLIC_ORGS_ONLY_MESSAGE)
        }
        for (const step of Context.get(endpoint.annotations, OrgGate)) {
          const principal = yield* signedIn
          if (step === "member") {
            yield* members.requireMember(principal.user, organization).pipe(Effect.mapError((e) => errors.forbidden(e.message)))
          } else if (step === "owner") {
            yield* members.requireOwner(principal.user, organization).pipe(Effect.mapError((e) => errors.forbidden(e.message)))
          }
        }
        return yield* Effect.provideService(httpEffect, RouteOrganization, organization)
      })
    )
  })
)
