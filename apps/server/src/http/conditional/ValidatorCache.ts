/**
 * The validators (entity tag, last modification) of recent JSON answers, by request (URL and
 * credentials) and by the data version they were read at, so that a client asking whether its copy
 * is still current is answered without running the route: while the version has not moved, nothing
 * the answer was read from has changed, so the body would be the same.
 *
 * Bounded by bytes, the oldest going first: a request is kept as a digest of what its answer
 * depends on, whatever the size of its URL and headers, and each entry is counted at what it holds
 * plus a fixed share for the objects around it. ConditionalResponses does not remember long URLs.
 */
import { hash } from "node:crypto"
import type { RequestBudget } from "../ratelimit/RequestBudgets.ts"

export interface Validators {
  /** The data version the answer was read at. */
  readonly version: number
  readonly etag: string
  readonly lastModified: string | undefined
  /** The budget the answer spent (its headers go with a 304 too). */
  readonly budget: RequestBudget | undefined
}

interface Entry {
  readonly validators: Validators
  readonly bytes: number
}

/** A generous share per entry for what is not text: the map's slot, the objects, numbers. */
const ENTRY_OVERHEAD_BYTES = 320

/** Bytes `validators` under `key` are counted as (strings at two bytes a character). */
export const entryBytes = (key: string, validators: Validators): number =>
  ENTRY_OVERHEAD_BYTES +
  2 * (key.length + validators.etag.length + (validators.lastModified?.length ?? 0) + (validators.budget?.budget.subject.length ?? 0))

export class ValidatorCache {
  readonly #entries = new Map<string, Entry>()
  readonly #maxBytes: number
  #bytes = 0

  constructor(options: { readonly maxBytes: number }) {
    this.#maxBytes = options.maxBytes
  }

  /** What the entries kept are counted as, together; never more than `maxBytes`. */
  get bytes(): number {
    return this.#bytes
  }

  get size(): number {
    return this.#entries.size
  }

  get(key: string): Validators | undefined {
    return this.#entries.get(key)?.validators
  }

  set(key: string, validators: Validators): void {
    this.#delete(key)
    const bytes = entryBytes(key, validators)
    if (bytes > this.#maxBytes) return
    // A Map iterates in insertion order: the first key is the oldest entry.
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes + bytes <= this.#maxBytes) break
      this.#delete(oldest)
    }
    this.#entries.set(key, { validators, bytes })
    this.#bytes += bytes
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    this.#entries.delete(key)
    this.#bytes -= entry.bytes
  }
}

/**
 * What an answer depends on besides the data, the URL and who asks (credentials, `Sudo`), as a
 * digest: 43 characters however long the URL and headers were.
 */
export const requestKey = (url: string, headers: { readonly [name: string]: string | undefined }): string =>
  hash("sha256", `${url}\u0000${headers["authorization"] ?? ""}\u0000${headers["sudo"] ?? ""}`, "base64url")
