/**
 * The protocol v2 capability advertisement of `git upload-pack`, remembered.
 *
 * In protocol v2 the `info/refs` answer lists no refs, only what the server can do: it depends on
 * the git binary, its environment (the same for every request here) and the repository's own
 * config. Remembering it per config text answers every fetch's first request without starting a
 * git process, whose spawn blocks the event loop for milliseconds; a pull is then two processes
 * (ls-refs, fetch) instead of three, and none when nothing moved (RefListings.ts).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** Whether a `Git-Protocol` header value asks for protocol version 2. */
export const isProtocolV2 = (protocol: string): boolean => /(?:^|:)version=2(?::|$)/.test(protocol)

/** Config texts are small; a bound keeps a site with many distinct ones from growing this. */
const MAX_ENTRIES = 64

/**
 * The repository's config, read synchronously: a small file in the page cache takes a few µs, where
 * a promise's open, read and close cost the event loop and the thread pool ~0.2 ms on every fetch.
 */
const readConfig = (path: string): string | undefined => {
  try {
    return readFileSync(join(path, "config"), "utf8")
  } catch {
    return undefined
  }
}

export class ProtocolV2Capabilities {
  readonly #remembered = new Map<string, Buffer>()

  /**
   * The advertisement for the repository at `path`, from memory when one with the same config and
   * protocol was made, else `make`'s (remembered unless undefined). Undefined when the config cannot
   * be read (the caller then runs git, which reports why).
   */
  async of(path: string, protocol: string, make: () => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
    const config = readConfig(path)
    if (config === undefined) return undefined
    const key = `${protocol}\0${config}`
    const remembered = this.#remembered.get(key)
    if (remembered !== undefined) return remembered
    const made = await make()
    if (made === undefined) return undefined
    if (this.#remembered.size >= MAX_ENTRIES) this.#remembered.clear()
    this.#remembered.set(key, made)
    return made
  }
}
