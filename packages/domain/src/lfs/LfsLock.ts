/** A lock on a path of a repository, held by one account (git-lfs's locking API). */
import type { User } from "../user/User.ts"

export interface LfsLock {
  readonly id: number
  readonly repositoryId: number
  /** Relative to the repository's root, slash-separated. */
  readonly path: string
  readonly owner: User
  /** Unix seconds. */
  readonly createdAt: number
}

/**
 * Forgejo's `util.PathJoinRel`: a lock's path cleaned to a relative one (no leading slash, no `.`
 * or `..` segments, no empty segments), so that `/a//b/../c` and `a/c` are the same lock.
 */
export const cleanLockPath = (path: string): string => {
  const segments: Array<string> = []
  for (const segment of path.replaceAll("\\", "/").split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") segments.pop()
    else segments.push(segment)
  }
  return segments.join("/")
}
