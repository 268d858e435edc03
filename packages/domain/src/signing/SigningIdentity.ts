/**
 * Who the instance signs as: the name and e-mail that go into the committer line of server-made commits
 * and into `verification.signer`, plus the key that makes the signatures.
 */
import { Schema } from "effect"

export const SigningIdentity = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  /** The primary key's 16-digit key id, upper-case hex, as gpg and Forgejo print it. */
  keyId: Schema.String,
  /** The primary key's 40-digit fingerprint, upper-case hex. */
  fingerprint: Schema.String
})
export type SigningIdentity = typeof SigningIdentity.Type
