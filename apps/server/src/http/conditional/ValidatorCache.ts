/**
 * The validators (entity tag, last modification) of recent JSON answers, by request (URL and
 * credentials) and by the data version they were read at, so that a client asking whether its copy
 * is still current is answered without running the route: while the version has not moved, nothing
 * the answer was read from has changed, so the body would be the same. Bounded: the oldest go first.
 */
import type { RequestBudget } from "../ratelimit/RequestBudgets.ts"

export interface Validators {
  /** The data version the answer was read at. */
  readonly version: number
  readonly etag: string
  readonly lastModified: string | undefined
  /** The budget the answer spent (its headers go with a 304 too). */
  readonly budget: RequestBudget | undefined
}

export class ValidatorCache {
  readonly #entries = new Map<string, Validators>()
  readonly #maxEntries: number

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  get(key: string): Validators | undefined {
    return this.#entries.get(key)
  }

  set(key: string, validators: Validators): void {
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(key)) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, validators)
  }
}

/** What an answer depends on besides the data: the URL and who asks (credentials, `Sudo`). */
export const requestKey = (url: string, headers: { readonly [name: string]: string | undefined }): string =>
  `${url}\u0000${headers["authorization"] ?? ""}\u0000${headers["sudo"] ?? ""}`
