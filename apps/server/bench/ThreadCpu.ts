/**
 * Where CPU time goes during a load, from Linux's /proc: a server process's threads grouped by what
 * they do (its main event loop, its worker threads, V8's helper threads that run the parallel and
 * concurrent parts of garbage collection and compilation), other processes picked by their command
 * line (a database's Postgres backends), and the whole machine's busy and stolen time. Elsewhere
 * than Linux every reading is undefined and the figures are left out.
 */
import * as Fs from "node:fs"

/** /proc reports times in USER_HZ, which the kernel's ABI fixes at 100 per second. */
const ticksPerSecond = 100

export type ThreadGroup = "main thread" | "worker threads" | "V8 helper threads" | "profiler thread" | "other threads"

/** CPU seconds per thread group, since the threads started. */
export type ProcessCpu = ReadonlyMap<ThreadGroup, number>

export interface MachineCpu {
  /** CPU seconds over all cores since boot: busy (neither idle nor waiting), and stolen by the hypervisor. */
  readonly busy: number
  readonly steal: number
}

const read = (file: string): string | undefined => {
  try {
    return Fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

const list = (directory: string): Array<string> | undefined => {
  try {
    return Fs.readdirSync(directory)
  } catch {
    return undefined
  }
}

/** User plus system seconds from a process's or thread's `stat` file; undefined once it has ended. */
const statSeconds = (file: string): number | undefined => {
  const stat = read(file)
  if (stat === undefined) return undefined
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

const groupOf = (pid: number, tid: number, name: string): ThreadGroup =>
  tid === pid
    ? "main thread"
    : name === "WorkerThread"
    ? "worker threads"
    : name === "V8Worker"
    ? "V8 helper threads"
    : name === "v8:ProfEvntProc"
    ? "profiler thread"
    : "other threads"

/** The CPU time of `pid`'s live threads, by group. */
export const sampleProcess = (pid: number): ProcessCpu | undefined => {
  const tids = list(`/proc/${pid}/task`)
  if (tids === undefined) return undefined
  const seconds = new Map<ThreadGroup, number>()
  for (const tid of tids) {
    const used = statSeconds(`/proc/${pid}/task/${tid}/stat`)
    const name = read(`/proc/${pid}/task/${tid}/comm`)?.trim()
    if (used === undefined || name === undefined) continue // the thread ended meanwhile
    const group = groupOf(pid, Number(tid), name)
    seconds.set(group, (seconds.get(group) ?? 0) + used)
  }
  return seconds
}

/** CPU seconds over every thread group. */
export const totalSeconds = (cpu: ProcessCpu): number => [...cpu.values()].reduce((sum, seconds) => sum + seconds, 0)

/** `after` minus `before`, per group; threads that started in between count from zero. */
export const processDelta = (before: ProcessCpu, after: ProcessCpu): ProcessCpu =>
  new Map([...after].map(([group, seconds]) => [group, seconds - (before.get(group) ?? 0)]))

/**
 * CPU seconds of each live process whose command line contains `text`, by process id (Postgres
 * names a backend's database in its command line).
 */
export const sampleMatching = (text: string): ReadonlyMap<string, number> | undefined => {
  const pids = list("/proc")?.filter((name) => /^\d+$/.test(name))
  if (pids === undefined) return undefined
  const seconds = new Map<string, number>()
  for (const pid of pids) {
    if (read(`/proc/${pid}/cmdline`)?.includes(text) !== true) continue
    const used = statSeconds(`/proc/${pid}/stat`)
    if (used !== undefined) seconds.set(pid, used)
  }
  return seconds
}

/** CPU seconds used between two `sampleMatching` readings by the processes alive at the second. */
export const matchingDelta = (before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0)

/** The machine's CPU time so far, from the first line of /proc/stat. */
export const sampleMachine = (): MachineCpu | undefined => {
  const line = read("/proc/stat")?.split("\n")[0]
  if (line === undefined || !line.startsWith("cpu ")) return undefined
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number)
  return { busy: (user + nice + system + irq + softirq) / ticksPerSecond, steal: steal / ticksPerSecond }
}

export const machineDelta = (before: MachineCpu, after: MachineCpu): MachineCpu => ({
  busy: after.busy - before.busy,
  steal: after.steal - before.steal
})

/** A process's own CPU seconds and those of its children it has waited for (git's, for a server). */
export interface OwnAndChildren {
  readonly own: number
  /** The kernel's part of `own` (fork's page-table copies land here). */
  readonly ownSystem: number
  readonly children: number
}

/** From /proc/<pid>/stat: utime+stime, and cutime+cstime (children and their waited-for descendants). */
export const sampleOwnAndChildren = (pid: number | "self"): OwnAndChildren | undefined => {
  const stat = read(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return {
    own: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
    ownSystem: Number(fields[12]) / ticksPerSecond,
    children: (Number(fields[13]) + Number(fields[14])) / ticksPerSecond
  }
}

/** The live child processes of `pid` whose command line contains `text`. */
export const childProcesses = (pid: number, text: string): Array<number> =>
  (list("/proc") ?? []).filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    const stat = read(`/proc/${entry}/stat`)
    if (stat === undefined) return []
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    return parent === pid && read(`/proc/${entry}/cmdline`)?.includes(text) === true ? [Number(entry)] : []
  })
