/**
 * Smart HTTP access decisions kept for the data version they were made at (DataChanges). A fetch
 * asks three times within a second (its advertisement, `ls-refs`, the fetch itself) and a push twice,
 * each with the same credentials for the same repository; while the version has not moved, nothing a
 * decision read has changed (account, token, repository, collaborators, teams, quota totals: every
 * commit to them moves it, from any process), so the decision is too. A kept decision costs no
 * sign-in, no query and no fiber (a fetch's main-thread CPU fell from ~3.8 to 3.3 ms). A change
 * committed by another process is seen when its notification arrives, milliseconds later, as for
 * the API's entity tags.
 *
 * What is kept is the caller's choice (GitRoutes keeps no refusal of credentials: each failed sign-in
 * is counted). Entries also expire after a minute, whatever the version says. Two generations of at most half the bound each, the older
 * dropped whole when the newer is full (as ValidatorCache does): nothing is ever iterated.
 */
import { hash } from "node:crypto"
import type { GitAccessRequest } from "@kiln/git"

interface Entry<D> {
  readonly version: number
  readonly expiresAt: number
  readonly decision: D
}

export interface GitDecisionsOptions {
  readonly maxEntries: number
  readonly ttlMillis: number
  readonly now?: () => number
}

/**
 * What a decision depends on in the request: the service (read or write), the repository as named,
 * and the credentials, as a digest (the password is not kept). A NUL cannot be in a name a decision
 * allowed, so the fields cannot run into each other.
 */
export const decisionKey = (request: GitAccessRequest): string => {
  const { credentials } = request
  const who = credentials === undefined ? "" : hash("sha256", `${credentials.username}\0${credentials.password}`)
  return `${request.service}\0${request.owner}\0${request.repo}\0${who}`
}

export class GitDecisions<D> {
  #newer = new Map<string, Entry<D>>()
  #older = new Map<string, Entry<D>>()
  readonly #half: number
  readonly #ttlMillis: number
  readonly #now: () => number

  constructor(options: GitDecisionsOptions) {
    this.#half = Math.max(1, Math.floor(options.maxEntries / 2))
    this.#ttlMillis = options.ttlMillis
    this.#now = options.now ?? Date.now
  }

  /** The decision kept under `key` at `version`, if it was made at that version and has not expired. */
  get(key: string, version: number): D | undefined {
    const entry = this.#newer.get(key) ?? this.#older.get(key)
    if (entry === undefined || entry.version !== version || entry.expiresAt <= this.#now()) return undefined
    return entry.decision
  }

  /** Keeps `decision`, made from reads at `version` (read before the decision began). */
  set(key: string, version: number, decision: D): void {
    if (this.#newer.size >= this.#half) {
      this.#older = this.#newer
      this.#newer = new Map()
    }
    this.#newer.set(key, { version, expiresAt: this.#now() + this.#ttlMillis, decision })
  }
}
