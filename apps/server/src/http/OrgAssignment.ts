/**
 * Forgejo's `orgAssignment` for `/orgs/{org}/**` and the gates those routes apply after it
 * (api-facts §0.4), as a middleware so that all of it runs before the body is decoded:
 * 1. the organization by name (404 `GetOrgByName`), whoever asks: like Forgejo's `orgAssignment`,
 *    this does not hide a private or limited organization;
 * 2. a public-only token is refused a non-public organization (403);
 * 3. the endpoint's `OrgGate`: `token` (401 `token is required`), `member` (403 `Must be an
 *    organization member`), `owner` (403 `Must be an organization owner`); site admins pass;
 * 4. on endpoints annotated `HidesInvisibleOrg` (only `GET /orgs/{org}`, as in Forgejo's handler),
 *    an organization the caller may not see is 404 `HasOrgOrUserVisible`.
 * The decision of every route is written down in `apps/server/docs/private-organizations.md`.
 */
import { Context, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { isPublicOnly, PUBLIC_ONLY_ORG_MESSAGE } from "@kiln/domain/auth/AccessTokenScope"
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

/** Set on the one route that hides an organization its caller may not see (`GET /orgs/{org}`). */
export const HidesInvisibleOrg = Context.Reference<boolean>("@kiln/server/HidesInvisibleOrg", { defaultValue: () => false })

/** The organization named in the path. */
export class RouteOrganization extends Context.Service<RouteOrganization, User>()("@kiln/server/RouteOrganization") {}

export class OrgAssignment extends HttpApiMiddleware.Service<OrgAssignment, {
  requires: Caller
  provides: RouteOrganization
}>()("@kiln/server/OrgAssignment", { error: [ApiUnauthorized, ApiForbidden, ApiNotFound] }) {}


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
        const organization = yield* organizations.byName(params["org"] ?? "").pipe(
          Effect.mapError((error) => errors.notFound("GetOrgByName", error.message))
        )
        const scopes = Option.flatMap(caller.principal, (principal) => principal.scopes)
        if (Option.isSome(scopes) && isPublicOnly(scopes.value) && organization.visibility !== "public") {
          return yield* errors.forbidden(PUBLIC_ONLY_ORG_MESSAGE)
        }
        for (const step of Context.get(endpoint.annotations, OrgGate)) {
          const principal = yield* signedIn
          if (step === "member") {
            yield* members.requireMember(principal.user, organization).pipe(Effect.mapError((e) => errors.forbidden(e.message)))
          } else if (step === "owner") {
            yield* members.requireOwner(principal.user, organization).pipe(Effect.mapError((e) => errors.forbidden(e.message)))
          }
        }
        if (Context.get(endpoint.annotations, HidesInvisibleOrg) && !(yield* organizations.canSee(viewer, organization))) {
          return yield* errors.notFound(ORG_HIDDEN_MESSAGE)
        }
        return yield* Effect.provideService(httpEffect, RouteOrganization, organization)
      })
    )
  })
)
