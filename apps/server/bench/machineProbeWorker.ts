/**
 * The machine probe's process (forked by MachineProbe.ts): every few milliseconds the same task, a
 * JSON round trip of a fixed page of records (the kind of work a server's requests are made of), its
 * CPU time read around it. A mark answers the mean since the previous one.
 */
import type { ProbeReply, ProbeRequest } from "./MachineProbe.ts"

const PAUSE_MS = 25

const page = Array.from({ length: 20 }, (_, i) => ({
  id: i,
  name: `repository-${i}`,
  full_name: `owner-${i % 5}/repository-${i}`,
  description: "a page of records of the size and shape a server renders".repeat(2),
  private: i % 3 === 0,
  owner: { id: i % 5, login: `owner-${i % 5}`, email: `owner-${i % 5}@example.invalid`, avatar_url: `https://example.invalid/avatars/${i % 5}` },
  permissions: { admin: false, push: i % 2 === 0, pull: true },
  size: i * 1_024,
  created_at: new Date(1_700_000_000_000 + i * 86_400_000).toISOString(),
  topics: ["one", "two", "three"]
}))

/** One task: a round trip repeated enough to take a few hundred µs, so a clock tick never dominates it. */
const task = (): number => {
  let checksum = 0
  for (let i = 0; i < 8; i++) {
    const text = JSON.stringify(page)
    checksum += (JSON.parse(text) as ReadonlyArray<unknown>).length + text.length
  }
  return checksum
}

let tasks = 0
let microseconds = 0
/** The tasks' results, kept so that their work is not optimized away. */
let sink = 0

const run = () => {
  const before = process.cpuUsage()
  sink += task()
  const used = process.cpuUsage(before)
  tasks++
  microseconds += used.user + used.system
  setTimeout(run, PAUSE_MS)
}

const send = (reply: ProbeReply) => process.send?.(reply)

process.on("message", (message: ProbeRequest) => {
  if (message.type !== "mark") return
  send({ type: "marked", microseconds: tasks === 0 ? undefined : microseconds / tasks })
  tasks = 0
  microseconds = 0
})
process.on("disconnect", () => process.exit(0))

// Its first tasks compile and warm the code: only what follows the first mark is reported.
for (let i = 0; i < 50; i++) sink += task()
run()
send({ type: "ready" })
