/** The port through which access tokens are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import type { AccessToken, StoredAccessToken } from "./AccessToken.ts"

export class AccessTokenStore extends Context.Service<AccessTokenStore, {
  /** Fails with AlreadyExists when the user already has a token of that name. */
  readonly insert: (token: Omit<StoredAccessToken, "id">) => Effect.Effect<AccessToken, AlreadyExists>
  /** Newest first. */
  readonly listForUser: (userId: number, page: PageRequest) => Effect.Effect<Page<AccessToken>>
  readonly findById: (userId: number, id: number) => Effect.Effect<Option.Option<AccessToken>>
  readonly findByName: (userId: number, name: string) => Effect.Effect<Option.Option<AccessToken>>
  /** Every token whose secret ends with these eight characters, with its owner: one round trip per request. */
  readonly candidates: (lastEight: string) => Effect.Effect<ReadonlyArray<{ readonly token: StoredAccessToken; readonly owner: User }>>
  readonly remove: (id: number) => Effect.Effect<void>
}>()("@kiln/domain/auth/AccessTokenStore") {}
