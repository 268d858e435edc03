/** The `SigningKey` port implemented with openpgp.js over one decrypted private key (or none). */
import { Effect, Option } from "effect"
import * as openpgp from "openpgp"
import { UnverifiedReason, unverified, verifiedBy } from "@kiln/domain/signing/CommitVerification"
import type { SigningIdentity } from "@kiln/domain/signing/SigningIdentity"
import type { SigningKey } from "@kiln/domain/signing/SigningKeys"
import { SigningKeyExportFailed } from "@kiln/domain/signing/SigningKeys"

interface KnownKey {
  readonly identity: SigningIdentity
  readonly publicKey: openpgp.PublicKey
}

// git hashes the object bytes as they are, so both signing and verifying treat the payload as binary data:
// a text-mode signature would be over CRLF-normalised lines, which Forgejo's verifier does not compute.
const binaryMessage = (payload: string) => openpgp.createMessage({ binary: new TextEncoder().encode(payload) })

/**
 * Forgejo's order for a signature that no user key claims: unreadable → `extract_sign`; verified by the
 * default key → `"<name> / <KEY ID>"`; issuer id equal to the default key's primary id but the check fails →
 * `probable_bad_signature`; anything else → `no_gpg_keys_found`.
 */
const verifyWith = (key: Option.Option<KnownKey>, payload: string, signature: string) =>
  Effect.promise(async () => {
    const signed = { payload, signature }
    const parsed = await openpgp.readSignature({ armoredSignature: signature }).catch(() => undefined)
    if (parsed === undefined) return unverified(UnverifiedReason.extractSign, signed)
    if (Option.isNone(key)) return unverified(UnverifiedReason.noKeyFound, signed)
    const { identity, publicKey } = key.value
    // A signature openpgp cannot even check (odd algorithm, malformed packet) is simply not verified.
    const result = await openpgp
      .verify({ message: await binaryMessage(payload), signature: parsed, verificationKeys: publicKey })
      .catch(() => ({ signatures: [] }))
    for (const candidate of result.signatures) {
      const good = await candidate.verified.then(() => true, () => false)
      if (good) return verifiedBy(identity, candidate.keyID.toHex(), signed)
    }
    const claimsOurKey = parsed.getSigningKeyIDs().some((id) => id.equals(publicKey.getKeyID()))
    return unverified(claimsOurKey ? UnverifiedReason.probableBadSignature : UnverifiedReason.noKeyFound, signed)
  })

/** Signing switched off: nothing is signed, the served key is empty, and no signature verifies. */
export const noSigningKey: SigningKey = {
  identity: Option.none(),
  armoredPublicKey: () => Effect.succeed(""),
  sign: () => Effect.succeed(Option.none()),
  verify: (payload, signature) => verifyWith(Option.none(), payload, signature)
}

/** A key that signs as `name <email>`; `privateKey` must be decrypted. */
export const openPgpSigningKey = (privateKey: openpgp.PrivateKey, name: string, email: string): SigningKey => {
  const publicKey = privateKey.toPublic()
  const identity: SigningIdentity = {
    name,
    email,
    keyId: publicKey.getKeyID().toHex().toUpperCase(),
    fingerprint: publicKey.getFingerprint().toUpperCase()
  }
  const known = Option.some({ identity, publicKey })
  return {
    identity: Option.some(identity),
    armoredPublicKey: () =>
      Effect.try({
        try: () => publicKey.armor(),
        catch: (cause) =>
          new SigningKeyExportFailed({ message: `cannot export the signing key: ${cause instanceof Error ? cause.message : String(cause)}` })
      }),
    sign: (payload) =>
      Effect.promise(async () =>
        Option.some(
          await openpgp.sign({ message: await binaryMessage(payload), signingKeys: privateKey, detached: true, format: "armored" })
        )
      ),
    verify: (payload, signature) => verifyWith(known, payload, signature)
  }
}
