/**
 * An account: an individual user or an organization. They share one name space,
 * as in Forgejo, so both live here and differ by `kind`.
 */
import type { Visibility } from "./Visibility.ts"

export type AccountKind = "individual" | "organization"

export interface User {
  readonly id: number
  readonly name: string
  /** Lower-cased name: the key for case-insensitive lookups and uniqueness. */
  readonly lowerName: string
  readonly kind: AccountKind
  readonly fullName: string
  readonly email: string
  readonly keepEmailPrivate: boolean
  readonly loginName: string
  readonly sourceId: number
  readonly isAdmin: boolean
  readonly restricted: boolean
  readonly active: boolean
  readonly prohibitLogin: boolean
  readonly mustChangePassword: boolean
  readonly visibility: Visibility
  readonly location: string
  readonly pronouns: string
  readonly keepPronounsPrivate: boolean
  readonly website: string
  readonly description: string
  readonly language: string
  /** -1: the instance default. */
  readonly maxRepoCreation: number
  readonly allowCreateOrganization: boolean
  readonly allowGitHook: boolean
  readonly allowImportLocal: boolean
  /** Organizations only: whether repository admins may change team access. */
  readonly repoAdminChangeTeamAccess: boolean
  /** Unix seconds. */
  readonly createdAt: number
  readonly updatedAt: number
  /** Unix seconds; 0 when the account never signed in. */
  readonly lastLoginAt: number
}

/** What a new account is made of; the store assigns the id. */
export type NewAccount = Omit<User, "id" | "lowerName">

/** Fields an administrator (or the account itself) may change. */
export type AccountChanges = Partial<Omit<User, "id" | "kind" | "createdAt">>

export const isOrganization = (user: User): boolean => user.kind === "organization"

/** A deactivated account, or one prohibited from signing in: Forgejo's "Your account is disabled." */
export const isDisabled = (user: User): boolean => user.prohibitLogin || !user.active

/** A new account with Forgejo's defaults for every field not given. */
export const newAccount = (
  fields: Pick<NewAccount, "name" | "kind" | "createdAt"> & Partial<NewAccount>
): NewAccount => ({
  fullName: "",
  email: "",
  keepEmailPrivate: false,
  loginName: "",
  sourceId: 0,
  isAdmin: false,
  restricted: false,
  active: true,
  prohibitLogin: false,
  mustChangePassword: false,
  visibility: "public",
  location: "",
  pronouns: "",
  keepPronounsPrivate: false,
  website: "",
  description: "",
  language: "",
  maxRepoCreation: -1,
  allowCreateOrganization: true,
  allowGitHook: false,
  allowImportLocal: false,
  repoAdminChangeTeamAccess: false,
  updatedAt: fields.createdAt,
  lastLoginAt: 0,
  ...fields
})
