/**
 * The `verification` object Forgejo puts on a commit (Branch JSON, commit JSON, push payloads):
 * `PayloadCommitVerification` in modules/structs/hook.go, filled by services/convert ToVerification from
 * models/asymkey ParseObjectWithSignature.
 *
 * - `signature` / `payload`: the armored signature and the signed bytes (the commit object without its
 *   `gpgsig` header); both "" for an unsigned commit.
 * - `signer`: only for a verified signature, otherwise null. `username` stays "" because ToVerification
 *   copies only the name and e-mail.
 * - `reason`: `"<signer name> / <KEY ID>"` when verified (the 16-digit upper-case id of the key or subkey
 *   that verified), otherwise one of the `gpg.error.*` codes below.
 */
import { Schema } from "effect"
import type { SigningIdentity } from "./SigningIdentity.ts"

export const CommitSigner = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  username: Schema.String
})
export type CommitSigner = typeof CommitSigner.Type

export const CommitVerification = Schema.Struct({
  verified: Schema.Boolean,
  reason: Schema.String,
  signature: Schema.String,
  signer: Schema.NullOr(CommitSigner),
  payload: Schema.String
})
export type CommitVerification = typeof CommitVerification.Type

/** The `gpg.error.*` reasons Forgejo reports for commits it cannot verify. */
export const UnverifiedReason = {
  /** The commit has no signature. */
  notSigned: "gpg.error.not_signed_commit",
  /** The signature is not made by any key the instance knows. */
  noKeyFound: "gpg.error.no_gpg_keys_found",
  /** The signature names a known key but does not verify with it (tampered payload or signature). */
  probableBadSignature: "gpg.error.probable_bad_signature",
  /** The signature text is not an OpenPGP signature. */
  extractSign: "gpg.error.extract_sign"
} as const
export type UnverifiedReason = (typeof UnverifiedReason)[keyof typeof UnverifiedReason]

/** What Forgejo shows for a commit without a signature. */
export const notSigned: CommitVerification = {
  verified: false,
  reason: UnverifiedReason.notSigned,
  signature: "",
  signer: null,
  payload: ""
}

export const unverified = (reason: UnverifiedReason, signed: { readonly payload: string; readonly signature: string }): CommitVerification => ({
  verified: false,
  reason,
  signature: signed.signature,
  signer: null,
  payload: signed.payload
})

/** A signature that verified with `identity`'s key; `verifyingKeyId` is the key or subkey that verified it. */
export const verifiedBy = (
  identity: SigningIdentity,
  verifyingKeyId: string,
  signed: { readonly payload: string; readonly signature: string }
): CommitVerification => ({
  verified: true,
  reason: `${identity.name} / ${verifyingKeyId.toUpperCase()}`,
  signature: signed.signature,
  signer: { name: identity.name, email: identity.email, username: "" },
  payload: signed.payload
})
