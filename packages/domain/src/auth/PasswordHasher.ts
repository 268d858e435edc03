/** Password hashing with a memory-hard KDF; the adapter decides the algorithm and parameters. */
import { Context, type Effect, type Redacted } from "effect"

export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** A self-describing hash string (algorithm, parameters, salt, digest). */
  readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Constant-time comparison; false for a hash it cannot parse. */
  readonly verify: (password: Redacted.Redacted<string>, hash: string) => Effect.Effect<boolean>
  /** Whether `hash` was made with weaker parameters than new hashes get: sign-in then replaces it. */
  readonly needsRehash: (hash: string) => boolean
}>()("@kiln/domain/auth/PasswordHasher") {}
