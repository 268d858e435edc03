/**
 * Administration of individual accounts (api-facts §2, §8.3): creation, changes, deletion,
 * listing, and which accounts a viewer may see. Organizations share the name space and the store.
 */
import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { AlreadyExists, Conflict, Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import { PasswordDerivations } from "../auth/PasswordDerivations.ts"
import { PasswordHasher } from "../auth/PasswordHasher.ts"
import { checkMaxSize } from "../binding/MaxSize.ts"
import { isValidHttpUrl } from "../org/HttpUrl.ts"
import { Transactions } from "../repo/Transactions.ts"
import { bindEmailForAdmin, checkEmailForAdmin } from "./EmailAddress.ts"
import { type AccountChanges, newAccount, type User } from "./User.ts"
import { bindUserName, checkUsableUserName } from "./UserName.ts"
import { type AccountSort, UserStore } from "./UserStore.ts"
import type { Visibility } from "./Visibility.ts"

export const MIN_PASSWORD_LENGTH = 8

export interface CreateAccountInput {
  readonly username: string
  readonly email: string
  readonly password?: Redacted.Redacted<string> | undefined
  readonly fullName?: string | undefined
  readonly loginName?: string | undefined
  readonly sourceId?: number | undefined
  readonly mustChangePassword?: boolean | undefined
  readonly restricted?: boolean | undefined
  readonly visibility?: Visibility | undefined
  readonly isAdmin?: boolean | undefined
  /** Unix seconds; sets creation and update time. */
  readonly createdAt?: number | undefined
}

/** Every field optional: absent means unchanged (Forgejo's pointer semantics). */
export interface EditAccountInput {
  readonly sourceId?: number | undefined
  readonly loginName?: string | undefined
  readonly email?: string | undefined
  readonly fullName?: string | undefined
  readonly password?: Redacted.Redacted<string> | undefined
  readonly mustChangePassword?: boolean | undefined
  readonly website?: string | undefined
  readonly location?: string | undefined
  readonly pronouns?: string | undefined
  readonly description?: string | undefined
  readonly active?: boolean | undefined
  readonly admin?: boolean | undefined
  readonly allowGitHook?: boolean | undefined
  readonly allowImportLocal?: boolean | undefined
  readonly maxRepoCreation?: number | undefined
  readonly prohibitLogin?: boolean | undefined
  readonly allowCreateOrganization?: boolean | undefined
  readonly restricted?: boolean | undefined
  readonly visibility?: Visibility | undefined
}

/**
 * Reasons an account cannot be deleted yet; other concerns (repositories, organizations,
 * packages) contribute checks as they come, so this service needs no knowledge of them.
 */
export class AccountDeletionGuards extends Context.Reference<
  ReadonlyArray<(user: User) => Effect.Effect<Option.Option<string>>>
>("@kiln/domain/user/AccountDeletionGuards", { defaultValue: () => [] }) {}

/**
 * What `purge` clears before an account is deleted (its repositories, its organization
 * memberships, ...), each concern contributing its own step. A Conflict stops the deletion.
 */
export class AccountPurgers extends Context.Reference<
  ReadonlyArray<(user: User) => Effect.Effect<void, Conflict>>
>("@kiln/domain/user/AccountPurgers", { defaultValue: () => [] }) {}

export const userNotFound = (name: string) => new NotFound({ message: `user does not exist [uid: 0, name: ${name}]` })

export const canSee = (viewer: Option.Option<User>, user: User): boolean => {
  if (user.visibility === "public") return true
  if (Option.isNone(viewer)) return false
  if (viewer.value.isAdmin || viewer.value.id === user.id) return true
  return user.visibility === "limited" && !viewer.value.restricted
}

export class UserAccounts extends Context.Service<UserAccounts, {
  /** Errors: Invalid (binding `[Field]: rule` or model text; `PasswordIsRequired` with field "Password"), AlreadyExists. */
  readonly create: (input: CreateAccountInput) => Effect.Effect<User, Invalid | AlreadyExists>
  readonly edit: (name: string, input: EditAccountInput) => Effect.Effect<User, NotFound | Invalid | AlreadyExists | Conflict>
  readonly remove: (name: string, doer: User, purge: boolean) => Effect.Effect<void, NotFound | Conflict>
  /** An individual account by name, regardless of who asks. */
  readonly byName: (name: string) => Effect.Effect<User, NotFound>
  /** Any account the viewer may see (users and organizations), by name. */
  readonly visibleByName: (viewer: Option.Option<User>, name: string) => Effect.Effect<User, NotFound>
  readonly list: (query: {
    readonly sort: AccountSort
    readonly page: PageRequest
    readonly loginName?: string | undefined
    readonly sourceId?: number | undefined
  }) => Effect.Effect<Page<User>>
  readonly search: (viewer: Option.Option<User>, query: {
    readonly keyword: string
    readonly id?: number | undefined
    readonly page: PageRequest
    /** The caller's token is limited to public resources: public accounts only. */
    readonly publicOnly?: boolean | undefined
  }) => Effect.Effect<Page<User>>
}>()("@kiln/domain/user/UserAccounts") {}

export const layer: Layer.Layer<UserAccounts, never, UserStore | PasswordHasher | PasswordDerivations | Transactions> = Layer.effect(
  UserAccounts,
  Effect.gen(function*() {
    const store = yield* UserStore
    const hasher = yield* PasswordHasher
    const derivations = yield* PasswordDerivations
    const transactions = yield* Transactions

    /** Inside a transaction: fails with `message` when `user` is the only site administrator left. */
    const refuseLastAdmin = (user: User, message: string) =>
      user.isAdmin
        ? Effect.flatMap(store.lockAdmins(), (admins) => admins <= 1 ? Effect.fail(new Conflict({ message })) : Effect.void)
        : Effect.void

    const byName = (name: string) =>
      Effect.flatMap(store.findByName(name), (found) =>
        Option.isSome(found) && found.value.kind === "individual"
          ? Effect.succeed(found.value)
          : Effect.fail(userNotFound(name)))

    const checkPassword = (password: Redacted.Redacted<string> | undefined) => {
      const length = password === undefined ? 0 : [...passwordText(password)].length
      return length < MIN_PASSWORD_LENGTH
        ? Effect.fail(new Invalid({ field: "Password", message: "PasswordIsRequired" }))
        : Effect.void
    }

    const create = Effect.fnUntraced(function*(input: CreateAccountInput) {
      yield* bindUserName(input.username, "Username")
      yield* bindEmailForAdmin(input.email, "Email")
      if (input.fullName !== undefined && [...input.fullName].length > 100) {
        return yield* new Invalid({ field: "FullName", message: "[FullName]: MaxSize" })
      }
      const sourceId = input.sourceId ?? 0
      if (sourceId !== 0) return yield* new Invalid({ field: "SourceID", message: `login source does not exist [id: ${sourceId}]` })
      yield* checkPassword(input.password)
      yield* checkUsableUserName(input.username)
      const now = input.createdAt ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const passwordHash = input.password === undefined ? "" : yield* derivations.waiting(hasher.hash(input.password))
      return yield* store.insert(newAccount({
        name: input.username.trim(),
        kind: "individual",
        fullName: input.fullName ?? "",
        email: input.email,
        // Forgejo stores the option as given: without `login_name` the account has none.
        loginName: input.loginName ?? "",
        sourceId,
        isAdmin: input.isAdmin ?? false,
        restricted: input.restricted ?? false,
        mustChangePassword: input.mustChangePassword ?? true,
        visibility: input.visibility ?? "public",
        createdAt: now
      }), passwordHash)
    })

    const edit = Effect.fnUntraced(function*(name: string, input: EditAccountInput) {
      // Forgejo assigns the account (404) before it binds the option, whose rules run in the
      // order of its fields.
      const user = yield* byName(name)
      yield* checkMaxSize("Email", input.email, 254)
      yield* checkMaxSize("FullName", input.fullName, 100)
      yield* checkMaxSize("Password", input.password === undefined ? undefined : passwordText(input.password), 255)
      if (input.website !== undefined && input.website !== "" && !isValidHttpUrl(input.website)) {
        return yield* new Invalid({ field: "Website", message: "[Website]: Url" })
      }
      yield* checkMaxSize("Website", input.website, 255)
      yield* checkMaxSize("Location", input.location, 50)
      yield* checkMaxSize("Pronouns", input.pronouns, 50)
      yield* checkMaxSize("Description", input.description, 255)
      if ((input.sourceId === undefined) !== (input.loginName === undefined)) {
        return yield* new Invalid({ message: "source_id and login_name must be specified together" })
      }
      const changes: { -readonly [K in keyof AccountChanges]: AccountChanges[K] } = {}
      if (input.sourceId !== undefined && input.loginName !== undefined) {
        if (input.sourceId !== 0) return yield* new Invalid({ message: `login source does not exist [id: ${input.sourceId}]` })
        changes.sourceId = input.sourceId
        changes.loginName = input.loginName
      }
      if (input.email !== undefined) {
        // A model-level check: Forgejo answers 400 here, where creation answers 422.
        yield* checkEmailForAdmin(input.email)
        const owner = yield* store.findByEmail(input.email)
        if (Option.isSome(owner) && owner.value.id !== user.id) {
          return yield* new AlreadyExists({ message: `e-mail already in use [email: ${input.email}]` })
        }
        changes.email = input.email
      }
      const newPassword = input.password !== undefined && passwordText(input.password) !== "" ? input.password : undefined
      if (newPassword !== undefined && [...passwordText(newPassword)].length < MIN_PASSWORD_LENGTH) {
        return yield* new Invalid({ field: "Password", message: `password must be at least ${MIN_PASSWORD_LENGTH} characters` })
      }
      // Hashed before the transaction (its locks are not held for the derivation), in the turns
      // every derivation takes.
      const passwordHash = newPassword === undefined ? undefined : yield* derivations.waiting(hasher.hash(newPassword))
      const assign = <K extends keyof AccountChanges>(key: K, value: AccountChanges[K] | undefined) => {
        if (value !== undefined) changes[key] = value
      }
      assign("fullName", input.fullName)
      assign("mustChangePassword", input.mustChangePassword)
      assign("website", input.website)
      assign("location", input.location)
      assign("pronouns", input.pronouns)
      assign("description", input.description)
      assign("active", input.active)
      assign("isAdmin", input.admin)
      assign("allowGitHook", input.allowGitHook)
      assign("allowImportLocal", input.allowImportLocal)
      assign("maxRepoCreation", input.maxRepoCreation)
      assign("prohibitLogin", input.prohibitLogin)
      assign("allowCreateOrganization", input.allowCreateOrganization)
      assign("restricted", input.restricted)
      assign("visibility", input.visibility)
      changes.updatedAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      // All or nothing: the password and the other changes land together, after every check.
      return yield* transactions.run(Effect.gen(function*() {
        if (input.admin === false) yield* refuseLastAdmin(user, "cannot remove the last admin")
        if (passwordHash !== undefined) yield* store.setPasswordHash(user.id, passwordHash)
        return yield* store.update(user.id, changes)
      }))
    })

    const remove = Effect.fnUntraced(function*(name: string, doer: User, purge: boolean) {
      const found = yield* store.findByName(name)
      if (Option.isNone(found)) return yield* userNotFound(name)
      const user = found.value
      if (user.kind === "organization") return yield* new Conflict({ message: `${user.name} is an organization not a user` })
      if (user.id === doer.id) return yield* new Conflict({ message: "you cannot delete yourself" })
      const lastAdmin = `can not delete the last admin user [uid: ${user.id}]`
      // Checked before a purge removes anything, and again, locked, where the row goes.
      yield* transactions.run(refuseLastAdmin(user, lastAdmin))
      if (purge) {
        for (const purger of yield* AccountPurgers) yield* purger(user)
      } else {
        for (const guard of yield* AccountDeletionGuards) {
          const refusal = yield* guard(user)
          if (Option.isSome(refusal)) return yield* new Conflict({ message: refusal.value })
        }
      }
      yield* transactions.run(Effect.andThen(refuseLastAdmin(user, lastAdmin), store.remove(user.id)))
    })

    return UserAccounts.of({
      create,
      edit,
      remove,
      byName,
      visibleByName: (viewer, name) =>
        Effect.flatMap(store.findByName(name), (found) =>
          Option.isSome(found) && canSee(viewer, found.value)
            ? Effect.succeed(found.value)
            : Effect.fail(userNotFound(name))),
      list: (query) => store.list({ kind: "individual", ...query }),
      search: (viewer, query) =>
        store.search({
          kind: "individual",
          keyword: query.keyword,
          matchEmail: Option.isSome(viewer),
          id: query.id,
          visibilities: Option.match(query.publicOnly === true ? Option.none() : viewer, {
            onNone: () => ["public"],
            onSome: (v) => v.isAdmin ? ["public", "limited", "private"] : v.restricted ? ["public"] : ["public", "limited"]
          }),
          page: query.page
        })
    })
  })
)

const passwordText = (password: Redacted.Redacted<string>): string => Redacted.value(password)
