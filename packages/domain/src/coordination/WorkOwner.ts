/**
 * Who made a temporary or trash entry on the shared data directory, so that a start-up reaps only
 * what a process that is gone left behind, never another live process's uploads or staging.
 *
 * An owner is a host, a process scope, a process id and an instance (random per process: the pid
 * of a container's process is the same after every restart). The scope names the process table the
 * pid belongs to (the boot, the pid namespace, the machine id): two containers sharing a data
 * directory and a host name (`--network host`) each run as pid 1, and only the scope tells their
 * entries apart. An entry of this host and scope is gone when its process is not
 * alive any more or, for our own pid, when it is of an earlier instance; an entry of another host
 * (whose processes this one cannot see) or one without an owner is gone after `maxAge`, and so is
 * one whose pid now belongs to some unrelated long-running process.
 */

export interface WorkOwner {
  readonly host: string
  /** 8 hex digits naming the process table (see `processScope`); "" in entries made before it existed. */
  readonly scope: string
  readonly pid: number
  readonly instance: string
}

/**
 * The process table a pid is a number in: the kernel's boot id (pids restart at a reboot), the pid
 * namespace (each container has its own) and the machine id, as read from the system ("" where it
 * cannot be). A short FNV-1a digest: it tells tables apart, it protects nothing.
 */
export const processScope = (facts: { readonly bootId: string; readonly pidNamespace: string; readonly machineId: string }): string => {
  let hash = 0x811c9dc5
  for (const character of `${facts.bootId.trim()}\n${facts.pidNamespace.trim()}\n${facts.machineId.trim()}`) {
    hash ^= character.codePointAt(0) ?? 0
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/** Entries of other hosts, and entries without an owner, older than this are reaped. */
export const maxAgeMillis = 24 * 60 * 60 * 1000

/**
 * An owner from the process's facts; `instance` is random hex, made once per process and per
 * directory tree it owns entries in (an adapter keeps it in a module constant).
 */
export const make = (host: string, scope: string, pid: number, instance: string): WorkOwner => ({
  host: host.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 64) || "host",
  scope,
  pid,
  instance
})

/** The owner as one path-safe word: `<host>~<scope>~<pid>~<instance>`. */
export const tag = (owner: WorkOwner): string => `${owner.host}~${owner.scope}~${owner.pid}~${owner.instance}`

// The scope is optional: entries made before it was recorded (`<host>~<pid>~<instance>`).
const tagPattern = /^([A-Za-z0-9._-]+)~(?:([0-9a-f]{8})~)?(\d+)~([0-9a-f]+)$/

export const parse = (text: string): WorkOwner | undefined => {
  const match = tagPattern.exec(text)
  if (match === null) return undefined
  const [, host = "", scope = "", pid = "", instance = ""] = match
  return { host, scope, pid: Number(pid), instance }
}

/** Whether an entry of `owner` (undefined: none recorded) may be reaped by `self`. */
export const isGone = (
  owner: WorkOwner | undefined,
  self: WorkOwner,
  facts: { readonly isAlive: (pid: number) => boolean; readonly ageMillis: number }
): boolean => {
  // Another host, or this host name in another process table (a container beside this one): its
  // pids mean nothing here.
  if (owner === undefined || owner.host !== self.host || owner.scope !== self.scope) return facts.ageMillis > maxAgeMillis
  if (owner.pid === self.pid) return owner.instance !== self.instance
  return !facts.isAlive(owner.pid) || facts.ageMillis > maxAgeMillis
}
