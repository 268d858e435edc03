/**
 * Recently rendered HTML, so the same text rendered again within a short time is not rendered
 * twice: keyed by a SHA-256 of the request and the mentionable names, bounded in entries and
 * characters, least recently used first out, and expired after `ttlMillis`.
 */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"
import { createHash } from "node:crypto"

export interface RenderCacheOptions {
  readonly maxEntries: number
  /** Total characters of cached HTML. */
  readonly maxChars: number
  readonly ttlMillis: number
  readonly now?: () => number
}

export interface RenderCache {
  readonly get: (key: string) => string | undefined
  readonly set: (key: string, html: string) => void
  readonly size: () => number
}

export const renderCacheKey = (request: RenderRequest, mentionable: ReadonlySet<string>): string =>
  createHash("sha256")
    .update(JSON.stringify([
      request.mode,
      request.context,
      request.wiki,
      request.rootUrl,
      request.repository?.owner ?? null,
      request.repository?.name ?? null,
      [...mentionable].sort()
    ]))
    .update("\u0000")
    .update(request.text)
    .digest("base64url")

interface Entry {
  readonly html: string
  readonly expires: number
}

export const makeRenderCache = (options: RenderCacheOptions): RenderCache => {
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  let chars = 0

  const remove = (key: string, entry: Entry): void => {
    entries.delete(key)
    chars -= entry.html.length
  }

  return {
    get: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(key)
      if (entry.expires <= now()) {
        chars -= entry.html.length
        return undefined
      }
      entries.set(key, entry)
      return entry.html
    },
    set: (key, html) => {
      if (html.length > options.maxChars) return
      const existing = entries.get(key)
      if (existing !== undefined) remove(key, existing)
      entries.set(key, { html, expires: now() + options.ttlMillis })
      chars += html.length
      for (const [oldest, entry] of entries) {
        if (entries.size <= options.maxEntries && chars <= options.maxChars) break
        remove(oldest, entry)
      }
    },
    size: () => entries.size
  }
}
