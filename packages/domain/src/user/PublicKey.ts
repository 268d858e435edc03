/** An SSH public key of an account (Forgejo's `PublicKey` of type user). */
export interface PublicKey {
  readonly id: number
  readonly ownerId: number
  readonly title: string
  /** Normalised `<type> <base64>` as Forgejo stores it. */
  readonly content: string
  /** `SHA256:<unpadded base64>`. */
  readonly fingerprint: string
  readonly readOnly: boolean
  readonly createdAt: number
  /** Forgejo's `updated_at`: when the key was added, or last used once something records its use. */
  readonly updatedAt: number
}
