/** The port through which accounts (users and organizations) are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { AccountChanges, AccountKind, NewAccount, User } from "./User.ts"
import type { Visibility } from "./Visibility.ts"

/** Forgejo's `sort` values for the admin user list. */
export type AccountSort =
  | "oldest"
  | "newest"
  | "alphabetically"
  | "reversealphabetically"
  | "recentupdate"
  | "leastupdate"

export interface AccountListQuery {
  readonly kind: AccountKind
  readonly sort: AccountSort
  readonly page: PageRequest
  readonly loginName?: string | undefined
  readonly sourceId?: number | undefined
  /** Only accounts with one of these visibilities; all when absent. */
  readonly visibilities?: ReadonlyArray<Visibility> | undefined
}

export interface AccountSearchQuery {
  readonly kind: AccountKind
  /** Matched case-insensitively against name and full name, and e-mail when `matchEmail`. */
  readonly keyword: string
  readonly matchEmail: boolean
  readonly id?: number | undefined
  readonly visibilities: ReadonlyArray<Visibility>
  readonly page: PageRequest
}

export class UserStore extends Context.Service<UserStore, {
  /** Fails with AlreadyExists when the name (case-insensitive) or the e-mail is taken. */
  readonly insert: (account: NewAccount, passwordHash: string) => Effect.Effect<User, AlreadyExists>
  readonly findById: (id: number) => Effect.Effect<Option.Option<User>>
  /** Case-insensitive. */
  readonly findByName: (name: string) => Effect.Effect<Option.Option<User>>
  /** An individual account by name or e-mail, case-insensitive: the password sign-in lookup. */
  readonly findSignInCandidate: (login: string) => Effect.Effect<Option.Option<User>>
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
  readonly update: (id: number, changes: AccountChanges) => Effect.Effect<User, AlreadyExists>
  readonly setPasswordHash: (id: number, passwordHash: string) => Effect.Effect<void>
  readonly passwordHash: (id: number) => Effect.Effect<Option.Option<string>>
  /** Removes the account with its tokens and keys. */
  readonly remove: (id: number) => Effect.Effect<void>
  readonly list: (query: AccountListQuery) => Effect.Effect<Page<User>>
  readonly search: (query: AccountSearchQuery) => Effect.Effect<Page<User>>
  readonly count: (kind: AccountKind) => Effect.Effect<number>
  /**
   * The number of site administrators, their rows locked until the transaction ends: run inside
   * one, a concurrent demotion or deletion waits and then counts what this one left.
   */
  readonly lockAdmins: () => Effect.Effect<number>
}>()("@kiln/domain/user/UserStore") {}
