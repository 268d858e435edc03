/** What the server's configuration (`KILN_SIGNING_*`) resolves to before the signing key is loaded. */
import type { Option, Redacted } from "effect"

export type SigningKeyMode =
  /** Create a key on first start in `dataDir` and reuse it on every later start. */
  | "generate"
  /** Sign nothing; serve an empty key. */
  | "none"
  /** An ASCII-armored private key file, decrypted with `passphrase` when it is protected. */
  | { readonly path: string }

export interface SigningKeysConfig {
  readonly mode: SigningKeyMode
  /** The signer's name and e-mail: the committer of server-made commits and `verification.signer`. */
  readonly name: string
  readonly email: string
  readonly passphrase: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
}
