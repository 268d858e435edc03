/**
 * The file system every isomorphic-git call is given: Node's promise API, with two changes.
 *
 * - isomorphic-git wraps the `fs` it receives anew on each call and, to tell a promise API from a
 *   callback one, calls its `readFile()` with no argument, twice: Node's `fs.promises` answers that
 *   with an argument error whose stack trace costs ~30 µs here, 60 µs per call, for every ref or
 *   object read. The probe is answered at once.
 * - Small files (loose objects, refs, `HEAD`, config) are read, and paths looked at, synchronously:
 *   from the page cache that takes a few µs, where a promise's open, stat, read and close cost the
 *   event loop ~0.2 ms per file (RefFiles.ts measured the same for ref files). Packs, and any file
 *   past SYNCHRONOUS_READ_BYTES, are read with the promise API, so that reading them never holds
 *   the event loop.
 * - A large file's bytes come as the ArrayBuffer they were read into: isomorphic-git
 *   wraps what it reads in `Buffer.from`, which copies a Buffer at ~3 ms per MB (a 30 MB pack
 *   loaded after a push: ~90 ms of the event loop) and views an ArrayBuffer without copying.
 *
 * The contents, and the failures, are those of the promise API: a failed synchronous call is a
 * rejected promise.
 */
import { lstatSync, promises, readFileSync, statSync } from "node:fs"
import type { PromiseFsClient } from "isomorphic-git"

/** Files up to this size are read synchronously: a loose commit or tree, a ref, a config. */
const SYNCHRONOUS_READ_BYTES = 64 * 1024

const settled = <A>(call: () => A): Promise<A> => {
  try {
    return Promise.resolve(call())
  } catch (error) {
    return Promise.reject(error)
  }
}

type ReadFileArguments = [] | [path: Parameters<typeof promises.readFile>[0], options?: Parameters<typeof promises.readFile>[1]]

/** The whole ArrayBuffer under `bytes` when they fill it (a read into a larger buffer, as readFileSync's, is copied). */
const unwrapped = (bytes: Buffer): Buffer | ArrayBuffer =>
  bytes.byteOffset === 0 && bytes.buffer instanceof ArrayBuffer && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes

const contents = (read: string | Buffer): string | Buffer | ArrayBuffer => typeof read === "string" ? read : unwrapped(read)

const readFile = (...args: ReadFileArguments): Promise<string | Buffer | ArrayBuffer | undefined> => {
  if (args.length === 0) return Promise.resolve(undefined)
  const [path, options] = args
  if (typeof path !== "string") return promises.readFile(path, options ?? null).then(contents)
  let size: number
  try {
    size = statSync(path).size
  } catch (error) {
    return Promise.reject(error)
  }
  if (size > SYNCHRONOUS_READ_BYTES) return promises.readFile(path, options ?? null).then(contents)
  // `options` as the promise API takes it (an encoding, or an object with one); its `signal` has
  // nothing to abort in a synchronous read.
  const encoding = typeof options === "string" ? options : options?.encoding
  return settled(() => encoding === undefined || encoding === null ? readFileSync(path) : readFileSync(path, encoding))
}

const stat = (path: Parameters<typeof statSync>[0]) => settled(() => statSync(path))
const lstat = (path: Parameters<typeof lstatSync>[0]) => settled(() => lstatSync(path))

export const isomorphicGitFs = { promises: { ...promises, readFile, stat, lstat } } satisfies PromiseFsClient
