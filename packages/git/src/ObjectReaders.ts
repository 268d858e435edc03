/**
 * Two ways to read commits: isomorphic-git with a warm pack cache (fast for repositories whose
 * packs fit the cache budget), and the repository's files one object at a time with `git cat-file
 * --batch` for the rest (memory bounded by what is read, for repositories whose packs do not, or
 * packs a push has just brought). GitStorageLive picks one per repository and call.
 */
import { Errors, expandOid, readObject, resolveRef } from "isomorphic-git"
import type { CommitInfo } from "@kiln/domain/git/CommitInfo"
import { catFileBatch } from "./CatFile.ts"
import { isMissing, parseCommitObject, readPeeledCommitInfo } from "./CommitReading.ts"
import type { GitCommandOptions } from "./GitCommand.ts"
import { isomorphicGitFs as fs } from "./IsomorphicGitFs.ts"
import { readRef } from "./RefFiles.ts"
import { readStoredCommit } from "./StoredObjects.ts"

export interface ObjectReader {
  /**
   * The commit each name comes to once peeled (annotated tags followed); undefined where it names
   * nothing or no commit. A name is a full object id or a full, valid ref name.
   */
  readonly commits: (names: ReadonlyArray<string>) => Promise<ReadonlyArray<CommitInfo | undefined>>
  /** The one object whose id starts with `prefix` (4 to 39 hex digits); undefined when none or several. */
  readonly expand: (prefix: string) => Promise<string | undefined>
  /** The raw text of commit `id` (a full id); undefined when `id` is no commit. */
  readonly rawCommit: (id: string) => Promise<Uint8Array | undefined>
}

const fullId = /^[0-9a-f]{40}$/

const absentAsUndefined = <A>(read: Promise<A>): Promise<A | undefined> =>
  read.catch((error: unknown) => {
    if (isMissing(error)) return undefined
    throw error
  })

/**
 * The object a ref names: from its file or `packed-refs`, synchronously (RefFiles.ts: a few µs,
 * where isomorphic-git's promise per file costs ~0.2 ms); with isomorphic-git when the refs are
 * not kept in files.
 */
const resolveName = (gitdir: string, name: string): Promise<string | undefined> => {
  const read = readRef(gitdir, name)
  return read === undefined ? absentAsUndefined(resolveRef({ fs, gitdir, ref: name })) : Promise.resolve(read.id)
}

export const isomorphicReader = (gitdir: string, cache: object): ObjectReader => {
  const commitOf = async (name: string) => {
    const target = fullId.test(name) ? name : await resolveName(gitdir, name)
    return target === undefined ? undefined : absentAsUndefined(readPeeledCommitInfo(gitdir, cache, target))
  }
  return {
    commits: (names) => Promise.all(names.map(commitOf)),
    expand: (prefix) =>
      expandOid({ fs, gitdir, oid: prefix, cache }).catch((error: unknown) => {
        // AmbiguousError as well: a short id that names two objects names none.
        if (isMissing(error) || error instanceof Errors.AmbiguousError) return undefined
        throw error
      }),
    rawCommit: async (id) => {
      const object = await absentAsUndefined(readObject({ fs, gitdir, oid: id, cache, format: "content" }))
      return object?.type === "commit" && object.object instanceof Uint8Array ? object.object : undefined
    }
  }
}

/**
 * What `<name>^{commit}` comes to, read from the repository's files (StoredObjects.ts): a commit,
 * "none" (it peels to no commit), or undefined where git must be asked (a ref not found in files
 * may still be found by git's wider lookup of names; an object stored as a delta).
 */
const storedCommit = (gitdir: string, name: string): CommitInfo | "none" | undefined => {
  const id = fullId.test(name) ? name : readRef(gitdir, name)?.id
  if (id === undefined) return undefined
  const found = readStoredCommit(gitdir, id)
  return found === "not a commit" ? "none" : found === undefined ? undefined : parseCommitObject(found.id, found.content)
}

/**
 * Reads through git (`git cat-file`) what the repository's files cannot answer directly: most
 * commits a read asks for (branch tips, pushed commits) are stored whole, and each then costs a
 * few synchronous reads instead of a process start.
 */
export const gitReader = (command: GitCommandOptions, gitdir: string): ObjectReader => ({
  commits: async (names) => {
    const found = names.map((name) => storedCommit(gitdir, name))
    const asked = names.filter((_, index) => found[index] === undefined)
    const answered = await catFileBatch(command, gitdir, asked.map((name) => `${name}^{commit}`))
    let next = 0
    return found.map((commit) => {
      if (commit === "none") return undefined
      if (commit !== undefined) return commit
      const object = answered[next++]
      return object?.type === "commit" ? parseCommitObject(object.oid, object.content) : undefined
    })
  },
  expand: async (prefix) => {
    // `^{object}`: the name is an object id prefix and nothing else (no ref of that name).
    const [object] = await catFileBatch(command, gitdir, [`${prefix}^{object}`], "without contents")
    return object?.oid.startsWith(prefix) === true ? object.oid : undefined
  },
  rawCommit: async (id) => {
    const stored = readStoredCommit(gitdir, id)
    if (stored === "not a commit") return undefined
    if (stored !== undefined) return stored.id === id ? new Uint8Array(stored.content) : undefined
    const [object] = await catFileBatch(command, gitdir, [`${id}^{commit}`])
    return object !== undefined && object.oid === id ? new Uint8Array(object.content) : undefined
  }
})
