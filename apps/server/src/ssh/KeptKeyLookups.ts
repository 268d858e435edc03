/**
 * What each SSH key was found to open, kept for the access version it was read at. Keys, deploy
 * keys and the accounts they belong to are access data: adding, deleting or changing any of them,
 * through any process, moves that version, and the next sign-in reads again. While it has not
 * moved, a key signing in again (git opens a connection per fetch or push) takes the earlier
 * answer: ~1 ms of the server's CPU per connection, a tenth of a fetch that finds nothing new
 * (2026-12-03, alternating runs, 8.95 against 9.9 ms).
 *
 * Unknown keys are kept too (a client offering a stranger's key each time); a lookup that failed
 * is not. Without a version (no change notices: `kiln serv`) nothing is kept.
 */

/** Fingerprints kept at most; the oldest lookup goes first. */
export const KEPT_KEYS = 4096

export interface KeyLookup<A> {
  /** The access version before the read began: a change committed while it ran moves past it. */
  readonly version: number | undefined
  readonly found: Promise<A>
}

export const makeKeptKeyLookups = <A>(
  read: (fingerprint: string) => Promise<A>,
  accessVersion: () => number | undefined,
  capacity: number = KEPT_KEYS
) => {
  const kept = new Map<string, KeyLookup<A>>()
  return (fingerprint: string): KeyLookup<A> => {
    const version = accessVersion()
    const known = kept.get(fingerprint)
    if (known !== undefined && version !== undefined && known.version === version) return known
    const lookup: KeyLookup<A> = { version, found: read(fingerprint) }
    kept.delete(fingerprint)
    if (version === undefined) return lookup
    kept.set(fingerprint, lookup)
    if (kept.size > capacity) {
      const oldest = kept.keys().next()
      if (oldest.done !== true) kept.delete(oldest.value)
    }
    lookup.found.catch(() => {
      if (kept.get(fingerprint) === lookup) kept.delete(fingerprint)
    })
    return lookup
  }
}
