/**
 * Who made a temporary or trash entry on the shared data directory, so that a start-up reaps only
 * what a process that is gone left behind, never another live process's uploads or staging.
 *
 * An owner is a host, a process id and an instance (random per process: the pid of a container's
 * process is the same after every restart). An entry of this host is gone when its process is not
 * alive any more or, for our own pid, when it is of an earlier instance; an entry of another host
 * (whose processes this one cannot see) or one without an owner is gone after `maxAge`, and so is
 * one whose pid now belongs to some unrelated long-running process.
 */

export interface WorkOwner {
  readonly host: string
  readonly pid: number
  readonly instance: string
}

/** Entries of other hosts, and entries without an owner, older than this are reaped. */
export const maxAgeMillis = 24 * 60 * 60 * 1000

/**
 * An owner from the process's facts; `instance` is random hex, made once per process and per
 * directory tree it owns entries in (an adapter keeps it in a module constant).
 */
export const make = (host: string, pid: number, instance: string): WorkOwner => ({
  host: host.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 64) || "host",
  pid,
  instance
})

/** The owner as one path-safe word: `<host>~<pid>~<instance>`. */
export const tag = (owner: WorkOwner): string => `${owner.host}~${owner.pid}~${owner.instance}`

const tagPattern = /^([A-Za-z0-9._-]+)~(\d+)~([0-9a-f]+)$/

export const parse = (text: string): WorkOwner | undefined => {
  const match = tagPattern.exec(text)
  if (match === null) return undefined
  const [, host = "", pid = "", instance = ""] = match
  return { host, pid: Number(pid), instance }
}

/** Whether an entry of `owner` (undefined: none recorded) may be reaped by `self`. */
export const isGone = (
  owner: WorkOwner | undefined,
  self: WorkOwner,
  facts: { readonly isAlive: (pid: number) => boolean; readonly ageMillis: number }
): boolean => {
  if (owner === undefined || owner.host !== self.host) return facts.ageMillis > maxAgeMillis
  if (owner.pid === self.pid) return owner.instance !== self.instance
  return !facts.isAlive(owner.pid) || facts.ageMillis > maxAgeMillis
}
