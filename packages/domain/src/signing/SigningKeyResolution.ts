/**
 * The one place that decides which key signs (and is served) for a repository. Handlers and the commit
 * writer call this instead of using the instance key directly, so a per-repository key (Forgejo resolves
 * the key from the repository's git config) plugs in here without touching them.
 */
import type { SigningKey } from "./SigningKeys.ts"

/** Where the repository lives; what a per-repository key would be looked up by. */
export interface SigningScope {
  readonly owner: string
  readonly name: string
}

/** Today every repository uses the instance key. */
export const signingKeyFor = (instanceKey: SigningKey, _repository: SigningScope): SigningKey => instanceKey
