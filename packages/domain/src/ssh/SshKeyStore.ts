/** The port through which SSH authentication finds stored keys of either kind. */
import { Context, type Effect, type Option } from "effect"

/** A stored SSH public key: an account's, or a deploy key (then `ownerId` is undefined). */
export interface StoredSshKey {
  readonly id: number
  readonly kind: "user" | "deploy"
  readonly ownerId: number | undefined
  readonly title: string
  /** Normalised `<type> <base64> <comment>`. */
  readonly content: string
  readonly fingerprint: string
}

export class SshKeyStore extends Context.Service<SshKeyStore, {
  /** The oldest key with this fingerprint (keys are unique by fingerprint since 0017). */
  readonly findByFingerprint: (fingerprint: string) => Effect.Effect<Option.Option<StoredSshKey>>
  readonly findById: (id: number) => Effect.Effect<Option.Option<StoredSshKey>>
}>()("@kiln/domain/ssh/SshKeyStore") {}
