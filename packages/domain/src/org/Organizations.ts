/**
 * Organizations (api-facts §5.1, §2 admin orgs): creation with the Owners team, reading with
 * Forgejo's visibility rule, editing with its field semantics, deletion behind guards, listings.
 * [routers/api/v1/org/org.go, routers/api/v1/admin/org.go, models/organization/org.go]
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { type AlreadyExists, Conflict, Forbidden, Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import { checkEmailForAdmin } from "../user/EmailAddress.ts"
import { type AccountChanges, newAccount, type User } from "../user/User.ts"
import { bindUserName, checkUsableUserName } from "../user/UserName.ts"
import { UserStore } from "../user/UserStore.ts"
import { bindVisibility, type Visibility } from "../user/Visibility.ts"
import { isValidHttpUrl } from "./HttpUrl.ts"
import { hasOrganizationsMessage, ORG_HIDDEN_MESSAGE, orgNotFoundMessage } from "./Organization.ts"
import { OrganizationStore } from "./OrganizationStore.ts"
import { canSeeAccount, organizationListFilter } from "./OrgVisibility.ts"
import { newOwnerTeam, type Team } from "./Team.ts"
import { TeamStore } from "./TeamStore.ts"

/** Instance settings Forgejo reads here: `[admin] DISABLE_REGULAR_ORG_CREATION`, `[service] DEFAULT_ORG_MEMBER_VISIBLE`. */
export interface OrganizationSettingsShape {
  readonly disableRegularOrgCreation: boolean
  readonly defaultMemberVisible: boolean
}

export class OrganizationSettings extends Context.Reference<OrganizationSettingsShape>(
  "@kiln/domain/org/OrganizationSettings",
  { defaultValue: () => ({ disableRegularOrgCreation: false, defaultMemberVisible: false }) }
) {}

/**
 * Reasons an organization cannot be deleted yet, each a Forgejo text (repositories add
 * `user still has ownership of repositories [uid: N]`, see `ownsRepositoriesMessage`).
 */
export class OrganizationDeletionGuards extends Context.Reference<
  ReadonlyArray<(organization: User) => Effect.Effect<Option.Option<string>>>
>("@kiln/domain/org/OrganizationDeletionGuards", { defaultValue: () => [] }) {}

/** CreateOrgOption. */
export interface CreateOrganizationInput {
  readonly username: string
  readonly fullName?: string | undefined
  readonly email?: string | undefined
  readonly description?: string | undefined
  readonly website?: string | undefined
  readonly location?: string | undefined
  /** "" or absent: public. */
  readonly visibility?: string | undefined
  readonly repoAdminChangeTeamAccess?: boolean | undefined
}

/**
 * EditOrgOption. `fullName`, `description`, `website` and `location` are always written: absent
 * means "". `email` absent: unchanged, "": removed. `visibility` absent or "": unchanged.
 */
export interface EditOrganizationInput {
  readonly fullName?: string | undefined
  readonly email?: string | undefined
  readonly description?: string | undefined
  readonly website?: string | undefined
  readonly location?: string | undefined
  readonly visibility?: string | undefined
  readonly repoAdminChangeTeamAccess?: boolean | undefined
}

export interface CreatedOrganization {
  readonly organization: User
  readonly ownerTeam: Team
}

/** Forgejo answers a refused `POST /orgs` with 403 and this text (a nil formatted by Go). */
export const ORG_CREATION_FORBIDDEN_MESSAGE = "%!s(<nil>)"
/** Forgejo's `ErrUserNotAllowedCreateOrg` text (Forgejo: 500 on the admin route; Kiln: 403). */
export const ORG_CREATION_NOT_ALLOWED_MESSAGE = "user is not allowed to create organizations"

export class Organizations extends Context.Service<Organizations, {
  /**
   * `POST /orgs`: `doer` creates the organization and becomes its only member and owner.
   * Errors, in order: Invalid binding `[UserName]: Required|invalid username|MaxSize`,
   * `[FullName]: MaxSize`, `[Email]: MaxSize`, `[Description]: MaxSize`, `[Website]: Url|MaxSize`,
   * `[Location]: MaxSize`, `[Visibility]: In` (422); Forbidden `%!s(<nil>)` when the doer may not
   * create organizations (403); Invalid `name is reserved [name: x]` / `name pattern is not allowed
   * [pattern: x]` / `name is invalid [...]` (422); AlreadyExists `user already exists [name: x]` (422).
   */
  readonly create: (doer: User, input: CreateOrganizationInput) => Effect.Effect<CreatedOrganization, Invalid | Forbidden | AlreadyExists>
  /**
   * `POST /admin/users/{username}/orgs`: as `create` for `owner`, but `email` and
   * `repo_admin_change_team_access` are ignored, and an owner who may not create organizations
   * fails with Forbidden `user is not allowed to create organizations` (Forgejo: 500).
   */
  readonly createForUser: (owner: User, input: CreateOrganizationInput) => Effect.Effect<CreatedOrganization, Invalid | Forbidden | AlreadyExists>
  /**
   * An organization by name (case-insensitive) whoever asks. NotFound `org does not exist [id: 0, name: x]`
   * (Forgejo: 404 with message `GetOrgByName` and that text in `errors`).
   */
  readonly byName: (name: string) => Effect.Effect<User, NotFound>
  /**
   * `GET /orgs/{org}`: as `byName`, then NotFound `HasOrgOrUserVisible` (404 with that message and
   * `errors: []`) when the viewer may not see it (Forgejo checks this on this route only).
   */
  readonly visibleByName: (viewer: Option.Option<User>, name: string) => Effect.Effect<User, NotFound>
  /** Forgejo's `HasOrgOrUserVisible` for this organization. */
  readonly canSee: (viewer: Option.Option<User>, organization: User) => Effect.Effect<boolean>
  /**
   * `PATCH /orgs/{org}` (owners). Invalid binding texts as on create but without `[UserName]`, then
   * `e-mail invalid [email: x]` (422). Omitted text fields are cleared.
   */
  readonly edit: (organization: User, input: EditOrganizationInput) => Effect.Effect<User, Invalid>
  /**
   * `DELETE /orgs/{org}` (owners): Conflict with the first guard's text (e.g. `user still has
   * ownership of repositories [uid: N]`; Forgejo: 500, the issue asks 422).
   */
  readonly remove: (organization: User) => Effect.Effect<void, Conflict>
  /** `GET /orgs`: visible organizations by name (anonymous: public; signed in: +limited; admins: all). */
  readonly list: (viewer: Option.Option<User>, query: { readonly page: PageRequest; readonly publicOnly: boolean }) => Effect.Effect<Page<User>>
  /** `GET /admin/orgs`: every organization by name. */
  readonly listAll: (page: PageRequest) => Effect.Effect<Page<User>>
  /**
   * `GET /user/orgs` (user = viewer) and `GET /users/{u}/orgs`: all memberships when the viewer is
   * the user or a site admin, else public memberships in public organizations; by lower-cased name.
   */
  readonly listForUser: (viewer: Option.Option<User>, user: User, page: PageRequest) => Effect.Effect<Page<User>>
  /**
   * For `AccountDeletionGuards`: a user who is still a member of organizations cannot be deleted
   * (`user still has membership of organizations [uid: N]`).
   */
  readonly membershipGuard: (user: User) => Effect.Effect<Option.Option<string>>
}>()("@kiln/domain/org/Organizations") {}

const maxSize = (value: string | undefined, max: number, field: string): Effect.Effect<void, Invalid> =>
  value !== undefined && [...value].length > max
    ? Effect.fail(new Invalid({ field, message: `[${field}]: MaxSize` }))
    : Effect.void

/** The bindings CreateOrgOption and EditOrgOption share, in field order (after `UserName`). */
const bindOrgFields = (input: EditOrganizationInput) =>
  Effect.gen(function*() {
    yield* maxSize(input.fullName, 100, "FullName")
    yield* maxSize(input.email, 255, "Email")
    yield* maxSize(input.description, 255, "Description")
    if (input.website !== undefined && input.website !== "" && !isValidHttpUrl(input.website)) {
      return yield* new Invalid({ field: "Website", message: "[Website]: Url" })
    }
    yield* maxSize(input.website, 255, "Website")
    yield* maxSize(input.location, 50, "Location")
    return yield* bindVisibility(input.visibility ?? "", "Visibility")
  })

const mayCreateOrganizations = (user: User, settings: OrganizationSettingsShape): boolean =>
  user.isAdmin || (user.allowCreateOrganization && !settings.disableRegularOrgCreation)

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

export const layer: Layer.Layer<Organizations, never, OrganizationStore | TeamStore | UserStore> = Layer.effect(
  Organizations,
  Effect.gen(function*() {
    const store = yield* OrganizationStore
    const teams = yield* TeamStore
    const users = yield* UserStore

    const insert = (owner: User, input: CreateOrganizationInput, visibility: Visibility, full: boolean) =>
      Effect.gen(function*() {
        const settings = yield* OrganizationSettings
        yield* checkUsableUserName(input.username)
        const now = yield* nowSeconds
        return yield* store.create(
          newAccount({
            name: input.username,
            kind: "organization",
            fullName: input.fullName ?? "",
            email: full ? input.email ?? "" : "",
            visibility,
            location: input.location ?? "",
            website: input.website ?? "",
            description: input.description ?? "",
            repoAdminChangeTeamAccess: full ? input.repoAdminChangeTeamAccess ?? false : false,
            createdAt: now
          }),
          owner,
          newOwnerTeam,
          settings.defaultMemberVisible
        )
      })

    /** The bindings of CreateOrgOption; the visibility, public by default. */
    const bindCreate = (input: CreateOrganizationInput) =>
      Effect.gen(function*() {
        yield* bindUserName(input.username, "UserName")
        return (yield* bindOrgFields(input)) ?? "public"
      })

    const byName = (name: string) =>
      Effect.flatMap(store.findByName(name), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ message: orgNotFoundMessage(name) })))

    const canSee = (viewer: Option.Option<User>, organization: User) =>
      Option.match(viewer, {
        onNone: () => Effect.succeed(canSeeAccount(viewer, organization, false)),
        onSome: (user) =>
          Effect.map(teams.isOrgMember(organization.id, user.id), (isMember) => canSeeAccount(viewer, organization, isMember))
      })

    return Organizations.of({
      create: (doer, input) =>
        Effect.gen(function*() {
          const visibility = yield* bindCreate(input)
          if (!mayCreateOrganizations(doer, yield* OrganizationSettings)) {
            return yield* new Forbidden({ message: ORG_CREATION_FORBIDDEN_MESSAGE })
          }
          return yield* insert(doer, input, visibility, true)
        }),
      createForUser: (owner, input) =>
        Effect.gen(function*() {
          const visibility = yield* bindCreate(input)
          if (!mayCreateOrganizations(owner, yield* OrganizationSettings)) {
            return yield* new Forbidden({ message: ORG_CREATION_NOT_ALLOWED_MESSAGE })
          }
          return yield* insert(owner, input, visibility, false)
        }),
      byName,
      visibleByName: (viewer, name) =>
        Effect.gen(function*() {
          const organization = yield* byName(name)
          if (!(yield* canSee(viewer, organization))) return yield* new NotFound({ message: ORG_HIDDEN_MESSAGE })
          return organization
        }),
      canSee,
      edit: (organization, input) =>
        Effect.gen(function*() {
          const visibility = yield* bindOrgFields(input)
          const changes: { -readonly [K in keyof AccountChanges]: AccountChanges[K] } = {
            fullName: input.fullName ?? "",
            description: input.description ?? "",
            website: input.website ?? "",
            location: input.location ?? ""
          }
          if (input.email !== undefined && input.email !== "" && input.email.toLowerCase() !== organization.email.toLowerCase()) {
            yield* checkEmailForAdmin(input.email)
          }
          if (input.email !== undefined) changes.email = input.email
          if (visibility !== undefined) changes.visibility = visibility
          if (input.repoAdminChangeTeamAccess !== undefined) changes.repoAdminChangeTeamAccess = input.repoAdminChangeTeamAccess
          changes.updatedAt = yield* nowSeconds
          // Organizations' e-mails are not unique, so the store cannot refuse them.
          return yield* Effect.orDie(users.update(organization.id, changes))
        }),
      remove: (organization) =>
        Effect.gen(function*() {
          for (const guard of yield* OrganizationDeletionGuards) {
            const refusal = yield* guard(organization)
            if (Option.isSome(refusal)) return yield* new Conflict({ message: refusal.value })
          }
          yield* store.remove(organization.id)
        }),
      list: (viewer, query) => store.list({ ...organizationListFilter(viewer, query.publicOnly), page: query.page }),
      listAll: (page) => store.list({ visibilities: ["public", "limited", "private"], page }),
      listForUser: (viewer, user, page) =>
        store.listForMember({
          userId: user.id,
          includePrivate: Option.match(viewer, { onNone: () => false, onSome: (v) => v.isAdmin || v.id === user.id }),
          page
        }),
      membershipGuard: (user) =>
        Effect.map(store.countMemberships(user.id), (count) =>
          count > 0 ? Option.some(hasOrganizationsMessage(user.id)) : Option.none())
    })
  })
)
