/**
 * A dump's `.tar.gz`, written as it goes (tar-stream into zlib into the file), with a SHA-256 per
 * checksum group (ChecksumGroups.ts) over each entry's path and content in archive order. Entries
 * wait for the file to take earlier ones, so memory stays bounded by one batch whatever the size.
 */
import { createHash, type Hash } from "node:crypto"
import { once } from "node:events"
import { createReadStream, createWriteStream } from "node:fs"
import { pipeline } from "node:stream/promises"
import { createGzip } from "node:zlib"
import * as TarStream from "tar-stream"
import { checksumGroup } from "./ChecksumGroups.ts"

export interface ArchiveTotals {
  readonly entries: number
  /** Bytes of content before compression. */
  readonly bytes: number
}

export class ArchiveWriter {
  readonly #pack = TarStream.pack()
  readonly #done: Promise<void>
  readonly #groups = new Map<string, Hash>()
  readonly #mtime = new Date()
  #entries = 0
  #bytes = 0
  readonly #onProgress: (totals: ArchiveTotals) => void

  constructor(path: string, onProgress: (totals: ArchiveTotals) => void = () => {}) {
    this.#onProgress = onProgress
    // Owner-only, as Forgejo's dump: it holds password and token hashes, webhook secrets and the signing key.
    this.#done = pipeline(this.#pack, createGzip(), createWriteStream(path, { flags: "wx", mode: 0o600 }))
    // The pipeline's failure surfaces in `finish`; until then it must not go unhandled.
    this.#done.catch(() => {})
  }

  get totals(): ArchiveTotals {
    return { entries: this.#entries, bytes: this.#bytes }
  }

  #hash(path: string): Hash {
    const group = checksumGroup(path)
    let hash = this.#groups.get(group)
    if (hash === undefined) {
      hash = createHash("sha256")
      this.#groups.set(group, hash)
    }
    hash.update(`${path}\0`)
    return hash
  }

  #counted(bytes: number) {
    this.#entries++
    this.#bytes += bytes
    this.#onProgress(this.totals)
  }

  async directory(path: string): Promise<void> {
    this.#hash(path)
    await new Promise<void>((resolve, reject) =>
      this.#pack.entry({ name: `${path}/`, type: "directory", mode: 0o755, mtime: this.#mtime }, (error) => error ? reject(error) : resolve())
    )
    this.#counted(0)
  }

  async buffer(path: string, content: Buffer): Promise<void> {
    this.#hash(path).update(content)
    await new Promise<void>((resolve, reject) =>
      this.#pack.entry({ name: path, size: content.length, mode: 0o644, mtime: this.#mtime }, content, (error) => error ? reject(error) : resolve())
    )
    this.#counted(content.length)
  }

  /** Copies `size` bytes of `source` (the size taken when the file was listed; files only grow by renames). */
  async file(path: string, source: string, size: number, mode = 0o644): Promise<void> {
    const hash = this.#hash(path)
    let finished: (error?: Error | null) => void = () => {}
    const written = new Promise<void>((resolve, reject) => (finished = (error) => error ? reject(error) : resolve()))
    const sink = this.#pack.entry({ name: path, size, mode, mtime: this.#mtime }, (error) => finished(error))
    if (size > 0) {
      for await (const chunk of createReadStream(source, { start: 0, end: size - 1 })) {
        const bytes = chunk as Buffer
        hash.update(bytes)
        if (!sink.write(bytes)) await once(sink, "drain")
      }
    }
    sink.end(Buffer.alloc(0))
    await written
    this.#counted(size)
  }

  /** The groups' checksums (hex), then closes the archive after a last entry made from them. */
  checksums(): Record<string, string> {
    return Object.fromEntries([...this.#groups].map(([group, hash]) => [group, hash.copy().digest("hex")]))
  }

  async finish(lastPath: string, last: Buffer): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      this.#pack.entry({ name: lastPath, size: last.length, mode: 0o644, mtime: this.#mtime }, last, (error) => error ? reject(error) : resolve())
    )
    this.#pack.finalize()
    await this.#done
  }

  /** Stops writing after a failure; the caller removes the file. */
  async abort(): Promise<void> {
    this.#pack.destroy()
    await this.#done.catch(() => {})
  }
}
