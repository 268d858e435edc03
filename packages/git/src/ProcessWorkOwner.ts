/**
 * This process as the owner of staging and trash directories under the repositories root, and
 * whether another owner's leftovers may be reaped (coordination/WorkOwner.ts).
 */
import { randomBytes } from "node:crypto"
import { readFileSync, readlinkSync } from "node:fs"
import { lstat } from "node:fs/promises"
import { hostname } from "node:os"
import * as WorkOwner from "@kiln/domain/coordination/WorkOwner"

// One instance for every GitStorage of this process: two embedded on one root reap nothing of each other.
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

/** Whether `path`, made by `entryOwner` (undefined: unknown), is a leftover of a process that is gone. */
export const isLeftBehind = async (path: string, entryOwner: WorkOwner.WorkOwner | undefined): Promise<boolean> => {
  const info = await lstat(path).catch(() => undefined)
  if (info === undefined) return false
  return WorkOwner.isGone(entryOwner, owner, { isAlive, ageMillis: Date.now() - info.mtimeMs })
}
