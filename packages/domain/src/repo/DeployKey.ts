/**
 * A deploy key: an SSH key added to one repository, opening only it, for reading or also for
 * pushing (Forgejo's `DeployKey`). The same key may be added to several repositories: `keyId`
 * names the key itself (what `kiln serv key-<id>` is given), `id` this repository's grant.
 */
export interface DeployKey {
  readonly id: number
  readonly keyId: number
  readonly repositoryId: number
  readonly title: string
  /** Normalised `<type> <base64> <comment>`, as for account keys. */
  readonly content: string
  /** `SHA256:<unpadded base64>`. */
  readonly fingerprint: string
  readonly readOnly: boolean
  readonly createdAt: number
}
