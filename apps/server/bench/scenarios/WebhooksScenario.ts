/**
 * Issue 18, item 9: webhook delivery. A local receiver (failing 20 % of first attempts with a 500),
 * 100 repositories with a hook each, and 1,000 API events (branches created, `create` hooks) spread
 * over them by 16 clients. Reported: the latency from the event's commit (the API answer, which
 * comes after it) to the receiver's first request, p50/p99, and to the first 2xx; sustained
 * deliveries per second; deliveries lost and deliveries sent twice.
 * Targets: first-attempt p99 < 1 s, nothing lost, no duplicate (no process dies here).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { atLeast, below, type BenchSettings, type DatabaseReport, perDatabase, type Scenario } from "../Scenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const REPOSITORIES = 100
const EVENTS = 1_000
const CLIENTS = 16
const FAILING_SHARE = 0.2
// Short, so the failed fifth is retried within the run (KILN_WEBHOOK_RETRY_DELAY).
const RETRY_DELAY_SECONDS = 1

interface Arrival {
  readonly first: number
  readonly attempts: number
  readonly delivered: number | undefined
  readonly successes: number
}

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}

/** The receiver: the first attempt of a fifth of the deliveries gets a 500, everything else a 200. */
const startReceiver = () =>
  new Promise<{ url: string; arrivals: Map<string, Arrival>; keys: Map<string, string>; close: () => Promise<void> }>((resolve) => {
    const arrivals = new Map<string, Arrival>()
    // delivery guid → the event it reports (repository and ref).
    const keys = new Map<string, string>()
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const now = performance.now()
        const guid = String(request.headers["x-forgejo-delivery"] ?? "")
        const previous = arrivals.get(guid)
        const fail = previous === undefined && Math.random() < FAILING_SHARE
        if (previous === undefined) {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { ref?: string; repository?: { full_name?: string } }
          keys.set(guid, `${body.repository?.full_name ?? ""} ${body.ref ?? ""}`)
        }
        arrivals.set(guid, {
          first: previous?.first ?? now,
          attempts: (previous?.attempts ?? 0) + 1,
          delivered: previous?.delivered ?? (fail ? undefined : now),
          successes: (previous?.successes ?? 0) + (fail ? 0 : 1)
        })
        response.writeHead(fail ? 500 : 200).end()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({ url: `http://127.0.0.1:${port}/hook`, arrivals, keys, close: () => new Promise((done) => server.close(() => done())) })
    })
  })

const runOn = async (kind: BenchDatabase.DatabaseKind, _settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, _settings.postgresUrl)
  const receiver = await startReceiver()
  const server = await startKiln({
    database,
    admin,
    logFile: Path.join(database.dataDir, "kiln.log"),
    env: {
      KILN_ACCESS_LOG: "false",
      KILN_WEBHOOK_ALLOWED_HOSTS: "loopback",
      KILN_WEBHOOK_RETRY_DELAY: String(RETRY_DELAY_SECONDS)
    }
  })
  try {
    // A token: a password sign-in derives a 128 MiB scrypt key, two at once at most.
    const auth = `token ${await createToken(server.url, admin, "bench-webhooks")}`
    const call = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      const text = await response.text()
      if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    }
    const repos = Array.from({ length: REPOSITORIES }, (_, i) => `hooked-${String(i).padStart(3, "0")}`)
    const seeding = performance.now()
    for (let start = 0; start < repos.length; start += 8) {
      await Promise.all(repos.slice(start, start + 8).map(async (name) => {
        await call("POST", "/user/repos", { name, auto_init: true })
        await call("POST", `/repos/${admin.username}/${name}/hooks`, {
          type: "forgejo",
          config: { url: receiver.url, content_type: "json" },
          events: ["create"],
          active: true
        })
      }))
    }
    notes.push(`seeded ${REPOSITORIES} repositories with a hook each in ${((performance.now() - seeding) / 1000).toFixed(1)} s`)
    log(`[${kind}] ${notes[notes.length - 1]}`)

    // event key → when its commit was known to be done (the API's answer).
    const committed = new Map<string, number>()
    let next = 0
    const started = performance.now()
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      for (let index = next++; index < EVENTS; index = next++) {
        const repo = repos[index % REPOSITORIES] ?? ""
        const branch = `b-${index}`
        await call("POST", `/repos/${admin.username}/${repo}/branches`, { new_branch_name: branch })
        committed.set(`${admin.username}/${repo} refs/heads/${branch}`, performance.now())
      }
    }))
    const eventsDone = performance.now()
    notes.push(`${EVENTS} events by ${CLIENTS} clients in ${((eventsDone - started) / 1000).toFixed(1)} s`)
    log(`[${kind}] ${notes[notes.length - 1]}`)

    const deadline = performance.now() + 120_000
    const delivered = () => [...receiver.arrivals.values()].filter((arrival) => arrival.delivered !== undefined).length
    while (delivered() < EVENTS && performance.now() < deadline) await new Promise((wake) => setTimeout(wake, 100))
    // Anything sent twice would come after a retry's delay.
    await new Promise((wake) => setTimeout(wake, RETRY_DELAY_SECONDS * 2_000))

    const firstLatencies: Array<number> = []
    const deliveredLatencies: Array<number> = []
    let lastDelivery = 0
    for (const [guid, arrival] of receiver.arrivals) {
      const at = committed.get(receiver.keys.get(guid) ?? "")
      if (at === undefined) continue
      // Negative when the delivery overtook the API's answer on its way back to the client.
      firstLatencies.push(Math.max(0, arrival.first - at))
      if (arrival.delivered !== undefined) {
        deliveredLatencies.push(Math.max(0, arrival.delivered - at))
        lastDelivery = Math.max(lastDelivery, arrival.delivered)
      }
    }
    const lost = EVENTS - delivered()
    const duplicates = [...receiver.arrivals.values()].filter((arrival) => arrival.successes > 1).length
    const retried = [...receiver.arrivals.values()].filter((arrival) => arrival.attempts > 1).length
    const perSecond = deliveredLatencies.length / ((lastDelivery - started) / 1000)
    notes.push(
      `first attempt after commit: p50 ${quantile(firstLatencies, 0.5).toFixed(1)} ms, p99 ${quantile(firstLatencies, 0.99).toFixed(1)} ms`,
      `delivered (first 2xx) after commit: p50 ${quantile(deliveredLatencies, 0.5).toFixed(1)} ms, p99 ${
        quantile(deliveredLatencies, 0.99).toFixed(1)
      } ms (retries after ${RETRY_DELAY_SECONDS} s)`,
      `${deliveredLatencies.length} delivered, ${retried} retried, ${lost} lost, ${duplicates} delivered twice; ${perSecond.toFixed(1)} deliveries/s sustained`
    )
    for (const note of notes.slice(-3)) log(`[${kind}] ${note}`)
    return {
      database: kind,
      loads: [],
      comparisons: [],
      targets: [
        below("first-attempt latency p99 ms", quantile(firstLatencies, 0.99), 1_000, true),
        below("deliveries lost", lost, 1, true),
        below("deliveries sent twice", duplicates, 1, true),
        atLeast("deliveries per second (information)", perSecond, 0, false)
      ],
      notes
    }
  } finally {
    await server.stop()
    await receiver.close()
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "webhooks",
  "1,000 API events over 100 repositories to a local receiver failing 20 % of first attempts: latency, rate, loss, duplicates",
  runOn
)
