/** The port through which deploy keys are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { DeployKey } from "./DeployKey.ts"

export class DeployKeyStore extends Context.Service<DeployKeyStore, {
  /**
   * Adds the key to the repository, reusing the key when another repository has it already.
   * AlreadyExists with Forgejo's texts: the content is an account's key, the key is in this
   * repository already, or this repository has a key of that title.
   */
  readonly insert: (key: Omit<DeployKey, "id" | "keyId">) => Effect.Effect<DeployKey, AlreadyExists>
  readonly findById: (id: number) => Effect.Effect<Option.Option<DeployKey>>
  /** The key goes too when no other repository has it. */
  readonly remove: (id: number) => Effect.Effect<void>
  /** Oldest first; `keyId` and `fingerprint` narrow the list when given. */
  readonly list: (query: {
    readonly repositoryId: number
    readonly keyId?: number | undefined
    readonly fingerprint?: string | undefined
    readonly page: PageRequest
  }) => Effect.Effect<Page<DeployKey>>
  /** Every repository the key (`keyId`, a public key id) was added to. */
  readonly grantsOf: (keyId: number) => Effect.Effect<ReadonlyArray<DeployKey>>
}>()("@kiln/domain/repo/DeployKeyStore") {}
