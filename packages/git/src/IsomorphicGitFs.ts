/**
 * The file system every isomorphic-git call is given. isomorphic-git wraps the `fs` it receives
 * anew on each call and, to tell a promise API from a callback one, calls its `readFile()` with no
 * argument, twice: Node's `fs.promises` answers that with an argument error whose stack trace costs
 * ~30 µs here, 60 µs per call, for every ref or object read. This file system is Node's promise API
 * with that probe answered at once; every real call goes to Node unchanged.
 */
import { promises } from "node:fs"
import type { PromiseFsClient } from "isomorphic-git"

const readFile = (...args: Parameters<typeof promises.readFile> | []) =>
  args.length === 0 ? Promise.resolve(undefined) : promises.readFile(...args)

export const isomorphicGitFs = { promises: { ...promises, readFile } } satisfies PromiseFsClient
