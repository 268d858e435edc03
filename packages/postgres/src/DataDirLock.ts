/**
 * Keeps two Kiln processes off the same data directory: PGlite on disk (and the repositories next to
 * it) would be corrupted by two writers. The lock is a `kiln.lock` file holding the owner's pid,
 * created with O_EXCL. A lock whose process is gone is taken over, like PostgreSQL's postmaster.pid.
 *
 * Known limits: if two processes find the same stale lock at the same instant, both may take it
 * over (PostgreSQL accepts the same window); a stale lock whose pid now belongs to an unrelated
 * process is reported as in use until the file is removed by hand.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"

export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  path: Schema.String,
  pid: Schema.Number
}) {
  override get message(): string {
    return `data directory ${this.path} is in use by process ${this.pid}`
  }
}

export class DataDirLockFailed extends Schema.TaggedError<DataDirLockFailed>()("DataDirLockFailed", {
  path: Schema.String,
  cause: Schema.Unknown
}) {
  override get message(): string {
    return `could not lock data directory ${this.path}: ${String(this.cause)}`
  }
}

export const lockFileName = "kiln.lock"

// Directories this process holds, with how many scopes hold each: the server and its database
// layer may both lock the same directory, and a lock file carrying our own pid that is not in
// this map is a leftover of an earlier process that happened to have the same pid.
const heldHere = new Map<string, number>()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

const readPid = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(Fs.readFileSync(file, "utf8").trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

const isErrorCode = (error: unknown, code: string): boolean =>
  error instanceof Error && "code" in error && error.code === code

/** Creates the lock file, or names the live process that holds it. */
const take = (directory: string): { readonly heldBy: number } | undefined => {
  const file = Path.join(directory, lockFileName)
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const fd = Fs.openSync(file, "wx")
      try {
        Fs.writeSync(fd, `${process.pid}\n`)
      } finally {
        Fs.closeSync(fd)
      }
      return undefined
    } catch (error) {
      if (!isErrorCode(error, "EEXIST")) throw error
    }
    const pid = readPid(file)
    // A file without a pid is either being written right now or was cut short by a crash.
    if (pid === undefined && attempt < 5) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
      continue
    }
    if (pid !== undefined && pid !== process.pid && isAlive(pid)) return { heldBy: pid }
    try {
      Fs.unlinkSync(file)
    } catch (error) {
      if (!isErrorCode(error, "ENOENT")) throw error
    }
  }
  throw new Error(`${file} keeps reappearing`)
}

const release = (directory: string): void => {
  const file = Path.join(directory, lockFileName)
  if (readPid(file) === process.pid) Fs.rmSync(file, { force: true })
}

/**
 * Holds the lock on `directory` (created if missing) for the life of the scope.
 * Fails at once with `DataDirInUse` when another live process holds it.
 */
export const acquire = (directory: string): Effect.Effect<void, DataDirInUse | DataDirLockFailed, Scope.Scope> => {
  const path = Path.resolve(directory)
  return Effect.acquireRelease(
    Effect.suspend(() => {
      const holders = heldHere.get(path) ?? 0
      if (holders > 0) {
        heldHere.set(path, holders + 1)
        return Effect.void
      }
      return Effect.try({
        try: () => {
          Fs.mkdirSync(path, { recursive: true })
          return take(path)
        },
        catch: (cause) => new DataDirLockFailed({ path, cause })
      }).pipe(
        Effect.flatMap((busy) =>
          busy === undefined
            ? Effect.sync(() => void heldHere.set(path, 1))
            : Effect.fail(new DataDirInUse({ path, pid: busy.heldBy }))
        )
      )
    }),
    () =>
      Effect.sync(() => {
        const holders = (heldHere.get(path) ?? 1) - 1
        if (holders > 0) {
          heldHere.set(path, holders)
          return
        }
        heldHere.delete(path)
        release(path)
      })
  )
}
