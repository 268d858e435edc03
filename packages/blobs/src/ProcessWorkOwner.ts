/**
 * This process as the owner of its directory under `<root>/tmp` (uploads being received, files
 * moved aside by a deletion in progress), and whether another owner's directory may be reaped
 * (coordination/WorkOwner.ts).
 */
import { randomBytes } from "node:crypto"
import { readFileSync, readlinkSync } from "node:fs"
import { lstat } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import * as WorkOwner from "@kiln/domain/coordination/WorkOwner"

// One instance for every BlobStorage of this process: two embedded on one root reap nothing of each other.
/** A system file's text, "" where there is none (another OS, a sandbox). */
const systemFact = (read: () => string): string => {
  try {
    return read()
  } catch {
    return ""
  }
}

/** The process table this pid is a number in (WorkOwner.processScope): boot, pid namespace, machine. */
const scope = WorkOwner.processScope({
  bootId: systemFact(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
  pidNamespace: systemFact(() => readlinkSync("/proc/self/ns/pid")),
  machineId: systemFact(() => readFileSync("/etc/machine-id", "utf8"))
})

export const owner: WorkOwner.WorkOwner = WorkOwner.make(hostname(), scope, process.pid, randomBytes(4).toString("hex"))

export const ownerTag = WorkOwner.tag(owner)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

/**
 * Whether the directory `name` at `path` belongs to a process that is gone (or to nobody, and is
 * old). Its age is that of its last change, its subdirectories' included (a file placed or moved
 * aside changes them).
 */
export const isLeftBehind = async (path: string, name: string): Promise<boolean> => {
  if (name === ownerTag) return false
  const changed = await Promise.all([path, join(path, "uploads"), join(path, "trash")].map((directory) =>
    lstat(directory).then((info) => info.mtimeMs, () => undefined)
  ))
  const known = changed.filter((time) => time !== undefined)
  if (known.length === 0) return false
  return WorkOwner.isGone(WorkOwner.parse(name), owner, { isAlive, ageMillis: Date.now() - Math.max(...known) })
}
