/**
 * The port for the key that signs server-made commits (initial `auto_init` commits and every later commit
 * the server itself writes) and is served at `/signing-key.gpg`. The OpenPGP work lives in an adapter
 * (`@kiln/openpgp`); nothing here or there shells out to gpg.
 */
import { Context, Schema } from "effect"
import type { Effect, Option } from "effect"
import type { CommitVerification } from "./CommitVerification.ts"
import type { SigningIdentity } from "./SigningIdentity.ts"

/** The public key could not be exported; the HTTP layer answers 500 in the error shape. */
export class SigningKeyExportFailed extends Schema.TaggedError<SigningKeyExportFailed>()("SigningKeyExportFailed", {
  message: Schema.String
}) {}

/** One signing key, or the absence of one (`KILN_SIGNING_KEY=none`). */
export interface SigningKey {
  /** Name, e-mail and key of the signer; none when signing is off. */
  readonly identity: Option.Option<SigningIdentity>
  /** The ASCII-armored public key; "" when signing is off (Forgejo answers 200 with an empty body then). */
  armoredPublicKey(): Effect.Effect<string, SigningKeyExportFailed>
  /**
   * An ASCII-armored detached signature over `payload` (a commit object without its `gpgsig` header,
   * exactly the bytes git hashes), ready for `SignedCommitObject.withSignature`; none when signing is off.
   */
  sign(payload: string): Effect.Effect<Option.Option<string>>
  /** Verifies a commit signature against this key the way Forgejo does for its default key. */
  verify(payload: string, signature: string): Effect.Effect<CommitVerification>
}

/** The instance's signing key. Per-repository resolution goes through `signingKeyFor`. */
export class SigningKeys extends Context.Service<SigningKeys, SigningKey>()("@kiln/domain/signing/SigningKeys") {}
