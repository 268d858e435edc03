/**
 * Where a server's CPU time went, from a V8 `.cpuprofile` (written by `node --cpu-prof`): self time
 * per area (Kiln, Effect, the database client, PGlite, Node) and the functions with the most.
 */
import * as Fs from "node:fs"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const isProfile = (value: unknown): value is Profile =>
  typeof value === "object" && value !== null && "nodes" in value && Array.isArray(value.nodes) &&
  "samples" in value && Array.isArray(value.samples) && "timeDeltas" in value && Array.isArray(value.timeDeltas)

/** The part of the system a frame belongs to, judged by its script's URL. */
export const areaOf = (url: string, functionName: string): string => {
  if (url === "") return functionName.startsWith("(") ? functionName : "native"
  if (url.startsWith("node:")) return "node"
  if (url.includes("@effect/sql-pg") || url.includes("/sql-pg/")) return "@effect/sql-pg"
  if (url.includes("@effect/platform-node")) return "@effect/platform-node"
  if (url.includes("pglite")) return "pglite"
  if (url.includes("/effect/") || url.includes("/effect@")) return "effect"
  if (url.includes("/packages/postgres/")) return "kiln postgres"
  if (url.includes("/packages/domain/")) return "kiln domain"
  if (url.includes("/apps/server/")) return "kiln server"
  if (url.includes("node_modules")) return "other packages"
  return "other"
}

const shortUrl = (url: string): string => {
  const marker = url.lastIndexOf("node_modules/")
  if (marker >= 0) return url.slice(marker + "node_modules/".length)
  const kiln = url.search(/\/(apps|packages)\//)
  return kiln >= 0 ? url.slice(kiln + 1) : url
}

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1).padStart(5)}%`

/**
 * A text summary: total sampled time, self time by area, and the top `top` functions; undefined for
 * a thread busy less than `minBusyShare` of the time (an idle worker: it only loaded its code).
 *
 * V8 samples on a wall clock: on a machine short of CPU, time the process spent waiting to be
 * scheduled is charged to whatever it was doing, typically a system call such as `writev`.
 */
export const summarize = (file: string, top = 25, minBusyShare = 0.2): string | undefined => {
  const parsed: unknown = JSON.parse(Fs.readFileSync(file, "utf8"))
  if (!isProfile(parsed)) return `${file}: not a V8 CPU profile`
  const byId = new Map(parsed.nodes.map((node) => [node.id, node]))
  const selfByFunction = new Map<string, { time: number; area: string }>()
  const selfByArea = new Map<string, number>()
  let total = 0
  parsed.samples.forEach((id, index) => {
    const node = byId.get(id)
    const delta = parsed.timeDeltas[index] ?? 0
    if (node === undefined) return
    const { functionName, url, lineNumber } = node.callFrame
    const area = areaOf(url, functionName)
    const key = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`
    const entry = selfByFunction.get(key) ?? { time: 0, area }
    entry.time += delta
    selfByFunction.set(key, entry)
    selfByArea.set(area, (selfByArea.get(area) ?? 0) + delta)
    total += delta
  })
  const busy = total - (selfByArea.get("(idle)") ?? 0)
  if (busy < minBusyShare * total) return undefined
  const lines = [
    `${file}`,
    `  sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s; self time by area (of busy):`
  ]
  for (const [area, time] of [...selfByArea].filter(([area]) => area !== "(idle)").sort((a, b) => b[1] - a[1])) {
    lines.push(`    ${percent(time, busy)}  ${area}`)
  }
  lines.push(`  top ${top} functions by self time (of busy):`)
  const functions = [...selfByFunction].filter(([, entry]) => entry.area !== "(idle)").sort((a, b) => b[1].time - a[1].time)
  for (const [key, entry] of functions.slice(0, top)) lines.push(`    ${percent(entry.time, busy)}  ${key}`)
  return lines.join("\n")
}
