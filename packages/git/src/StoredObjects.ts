/**
 * One object read straight from a repository's files: a loose object, or one a pack stores whole,
 * found through the pack's `.idx` (a binary search over one fan-out bucket of ids) and inflated
 * from its place in the pack. Nothing is loaded but the object's own bytes.
 *
 * This is the read of a push's follow-up: it reads its branch tips, commits the push's new pack
 * brought. isomorphic-git would load that pack whole first, and `git cat-file` costs a process
 * start (~9 ms of a whole-history push on a machine whose process starts are slow), where these
 * few synchronous reads from the page cache take well under a millisecond.
 *
 * Only what this reads with certainty is answered: an object stored as a delta, a repository of
 * another object format, a pack index of another version, an object not found (a concurrent
 * repack moved it, or it is in an alternate) all come back undefined, for git to read.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs"
import { join } from "node:path"
import { inflateSync } from "node:zlib"

export type ObjectType = "commit" | "tree" | "blob" | "tag"

export interface StoredObject {
  readonly type: ObjectType
  readonly content: Buffer
}

const SHA1_BYTES = 20
const IDX_SIGNATURE = 0xff744f63
const IDX_HEADER_BYTES = 8
const FANOUT_BYTES = 256 * 4
/** Pack entry types (git's `object_type`): whole objects 1–4, deltas 6 and 7. */
const PACKED_TYPES: ReadonlyArray<ObjectType | undefined> = [undefined, "commit", "tree", "blob", "tag"]
/** Enough for any entry header (a type and a size of up to 64 bits in 7-bit groups). */
const ENTRY_HEADER_BYTES = 16
/** Beyond this an object is not read here: commits and tags are small, and so is what peeling needs. */
const LARGEST_OBJECT_BYTES = 1024 * 1024

const isFileGone = (error: unknown) =>
  error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR" || error.code === "EISDIR")

/** `length` bytes of the open file at `position`; fewer when the file ends first. */
const readAt = (fd: number, position: number, length: number): Buffer => {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled)
    if (read === 0) break
    filled += read
  }
  return buffer.subarray(0, filled)
}

const withFile = <A>(path: string, use: (fd: number) => A): A => {
  const fd = openSync(path, "r")
  try {
    return use(fd)
  } finally {
    closeSync(fd)
  }
}

/** The offset in its pack of the object `id` (20 bytes) per the version 2 index at `path`; undefined when not listed. */
const offsetInIndex = (path: string, id: Buffer): number | undefined =>
  withFile(path, (fd) => {
    const head = readAt(fd, 0, IDX_HEADER_BYTES + FANOUT_BYTES)
    if (head.length < IDX_HEADER_BYTES + FANOUT_BYTES || head.readUInt32BE(0) !== IDX_SIGNATURE || head.readUInt32BE(4) !== 2) {
      return undefined
    }
    const first = id[0] ?? 0
    const count = head.readUInt32BE(IDX_HEADER_BYTES + 255 * 4)
    const low = first === 0 ? 0 : head.readUInt32BE(IDX_HEADER_BYTES + (first - 1) * 4)
    const high = head.readUInt32BE(IDX_HEADER_BYTES + first * 4)
    if (high <= low || high > count) return undefined
    const idsStart = IDX_HEADER_BYTES + FANOUT_BYTES
    const bucket = readAt(fd, idsStart + low * SHA1_BYTES, (high - low) * SHA1_BYTES)
    // The ids are sorted: binary search within the bucket.
    let from = 0
    let to = high - low
    let found = -1
    while (from < to) {
      const middle = (from + to) >>> 1
      const order = bucket.compare(id, 0, SHA1_BYTES, middle * SHA1_BYTES, (middle + 1) * SHA1_BYTES)
      if (order === 0) {
        found = low + middle
        break
      }
      if (order < 0) from = middle + 1
      else to = middle
    }
    if (found < 0) return undefined
    // After the ids: a CRC32 per object, then a 31-bit offset per object (its top bit set: an index
    // into the table of 64-bit offsets that follows).
    const offsetsStart = idsStart + count * SHA1_BYTES + count * 4
    const small = readAt(fd, offsetsStart + found * 4, 4)
    if (small.length < 4) return undefined
    const offset = small.readUInt32BE(0)
    if ((offset & 0x80000000) === 0) return offset
    const large = readAt(fd, offsetsStart + count * 4 + (offset & 0x7fffffff) * 8, 8)
    if (large.length < 8) return undefined
    const value = large.readBigUInt64BE(0)
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined
  })

/** zlib's largest output for `size` bytes of input (stored blocks), with room for its header and checksum. */
const deflatedBound = (size: number) => size + 5 * Math.ceil((size + 1) / 16383) + 64

/** The whole object at `offset` in the pack at `path`; undefined for a delta or anything unexpected. */
const objectInPack = (path: string, offset: number): StoredObject | undefined =>
  withFile(path, (fd) => {
    const header = readAt(fd, offset, ENTRY_HEADER_BYTES)
    let byte = header[0] ?? 0
    const type = PACKED_TYPES[(byte >> 4) & 7]
    let size = byte & 15
    let shift = 4
    let position = 1
    while ((byte & 0x80) !== 0) {
      if (position >= header.length || shift > 28) return undefined
      byte = header[position++] ?? 0
      size += (byte & 0x7f) * 2 ** shift
      shift += 7
    }
    if (type === undefined || size > LARGEST_OBJECT_BYTES) return undefined
    const content = inflateSync(readAt(fd, offset + position, deflatedBound(size)))
    return content.length === size ? { type, content } : undefined
  })

/** A loose object: `objects/xx/<rest>`, deflated, its header `<type> <size>` and a NUL. */
const looseObject = (gitdir: string, id: string): StoredObject | undefined => {
  let stored: Buffer
  try {
    stored = readFileSync(join(gitdir, "objects", id.slice(0, 2), id.slice(2)))
  } catch (error) {
    if (isFileGone(error)) return undefined
    throw error
  }
  if (stored.length > LARGEST_OBJECT_BYTES) return undefined
  const inflated = inflateSync(stored)
  const nul = inflated.indexOf(0)
  const [typeName, sizeText] = inflated.subarray(0, Math.max(nul, 0)).toString("latin1").split(" ")
  const type = PACKED_TYPES.find((known) => known !== undefined && known === typeName)
  const content = inflated.subarray(nul + 1)
  if (type === undefined || sizeText !== String(content.length)) return undefined
  return { type, content }
}

const packIndexes = (gitdir: string): Array<string> => {
  try {
    return readdirSync(join(gitdir, "objects", "pack")).filter((name) => name.endsWith(".idx"))
  } catch (error) {
    if (isFileGone(error)) return []
    throw error
  }
}

/** Whether the repository's objects are SHA-1's (its pack indexes list 20-byte ids). */
const isSha1Repository = (gitdir: string): boolean => !/^\s*objectformat\s*=/im.test(readFileSync(join(gitdir, "config"), "utf8"))

const sha1 = /^[0-9a-f]{40}$/

/**
 * The object `id` (a full SHA-1 in hex) as the repository at `gitdir` stores it, when it is loose
 * or stored whole in a pack; undefined when it is not found this way (ask git).
 */
export const readStoredObject = (gitdir: string, id: string): StoredObject | undefined => {
  if (!sha1.test(id)) return undefined
  try {
    if (!isSha1Repository(gitdir)) return undefined
    const key = Buffer.from(id, "hex")
    for (const index of packIndexes(gitdir)) {
      const offset = offsetInIndex(join(gitdir, "objects", "pack", index), key)
      if (offset !== undefined) return objectInPack(join(gitdir, "objects", "pack", `${index.slice(0, -".idx".length)}.pack`), offset)
    }
    return looseObject(gitdir, id)
  } catch {
    // A pack removed by a repack as it was read, or a truncated or corrupt file: git decides.
    return undefined
  }
}

/** What `<id>^{commit}` comes to: tags followed, at most 8; undefined when not read here (ask git). */
export const readStoredCommit = (
  gitdir: string,
  id: string
): { readonly id: string; readonly content: Buffer } | "not a commit" | undefined => {
  let oid = id
  for (let depth = 0; depth < 8; depth++) {
    const object = readStoredObject(gitdir, oid)
    if (object === undefined) return undefined
    if (object.type === "commit") return { id: oid, content: object.content }
    if (object.type !== "tag") return "not a commit"
    const target = /^object ([0-9a-f]{40})\n/.exec(object.content.toString("latin1"))?.[1]
    if (target === undefined) return undefined
    oid = target
  }
  return undefined
}
