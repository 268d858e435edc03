/**
 * Smart HTTP access decisions kept for the data version they were made at (DataChanges: the access
 * version, which a push's own writes leave as it is; GitRoutes says which). A fetch asks three times
 * within a second (its advertisement, `ls-refs`, the fetch itself) and a push twice, each with the
 * same credentials for the same repository, and a CI job or a developer asks again and again; while
 * the version has not moved, nothing a decision read has changed (account, token, repository,
 * collaborators, teams: every commit to them moves it, from any process), so the decision is too.
 * Kept across pushes too, a push's CPU went from 0.40-0.43 of its git's to 0.39 (three alternating
 * runs of 120 pushes each). A kept decision costs no
 * sign-in, no query and no fiber (a fetch's main-thread CPU went from 3.9 and 3.7 ms to 3.3 and 3.3
 * in alternating bench runs; later runs on a drifting machine could not tell). A change
 * committed by another process is seen when its notification arrives, milliseconds later, as for
 * the API's entity tags.
 *
 * What is kept is the caller's choice (GitRoutes keeps nothing a password decided, nor any refusal
 * of credentials). Entries also expire a minute after they were made, whatever the version says.
 * Two generations of at most half the bound each, the older dropped whole when the newer is full
 * (as ValidatorCache does): nothing is ever iterated.
 */
import { createHmac, createSecretKey, randomBytes } from "node:crypto"
import type { DataChanges } from "@kiln/domain/changes/DataChanges"
import type { GitAccessRequest, GitService } from "@kiln/git"

/**
 * The version a decision about `service` is kept for: the access version, which a push's own writes
 * (its repository's contents) leave as it is, so that the next fetch or push is decided as before;
 * but the data version for a push while quotas are enforced, as its quota check reads the sizes
 * pushes change. An anonymous caller's push is refused before any quota is read (GitAccess: asked
 * to sign in, or told the repository moved or is archived), so its refusal keeps the access
 * version: git's first request of every push is one, and each push had its own repository read.
 */
export const decisionVersion = (
  changes: DataChanges["Service"],
  service: GitService,
  quotaEnforced: boolean,
  anonymous: boolean
): number | undefined =>
  service === "git-receive-pack" && quotaEnforced && !anonymous ? changes.version() : changes.accessVersion()

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

export class GitDecisions<D> {
  /**
   * Keys are keyed digests: a memory dump shows no password, nor anything to test guesses against.
   * A KeyObject, made once: HMAC from a raw buffer makes one per call (~12 µs against ~2).
   */
  readonly #secret = createSecretKey(randomBytes(32))
  #newer = new Map<string, Entry<D>>()
  #older = new Map<string, Entry<D>>()
  readonly #half: number
  readonly #ttlMillis: number
  readonly #now: () => number

  constructor(options: GitDecisionsOptions) {
    this.#half = Math.max(1, Math.floor(options.maxEntries / 2))
    this.#ttlMillis = options.ttlMillis
    this.#now = options.now ?? (() => performance.now())
  }

  /**
   * What a decision depends on in the request: the service (read or write), the repository as named,
   * and the credentials, digested whole (a key's size is fixed, however long the names asked for).
   */
  keyOf(request: GitAccessRequest): string {
    const { credentials } = request
    // Each field after its length: no two requests' fields run into the same text.
    const hmac = createHmac("sha256", this.#secret)
      .update(`${request.service} ${request.owner.length}:${request.owner}${request.repo.length}:${request.repo}`)
    if (credentials !== undefined) hmac.update(` ${credentials.username.length}:${credentials.username}${credentials.password}`)
    return hmac.digest("base64")
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
