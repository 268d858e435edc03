/** The port through which SSH public keys are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { PublicKey } from "./PublicKey.ts"

export class PublicKeyStore extends Context.Service<PublicKeyStore, {
  /** Fails with AlreadyExists for a duplicate content (any owner) or a duplicate title of that owner. */
  /** A new key's `updatedAt` is its `createdAt`. */
  readonly insert: (key: Omit<PublicKey, "id" | "updatedAt">) => Effect.Effect<PublicKey, AlreadyExists>
  readonly findById: (id: number) => Effect.Effect<Option.Option<PublicKey>>
  readonly remove: (id: number) => Effect.Effect<void>
  /** Oldest first; `ownerId` and `fingerprint` narrow the list when given. */
  readonly list: (query: {
    readonly ownerId?: number | undefined
    readonly fingerprint?: string | undefined
    readonly page: PageRequest
  }) => Effect.Effect<Page<PublicKey>>
}>()("@kiln/domain/user/PublicKeyStore") {}
