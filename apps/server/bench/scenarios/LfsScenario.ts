/**
 * Issue 29, item 7: Git LFS through Kiln against a bare Node static file server on the same disk,
 * both driven by curl in the same run:
 *  - upload of a 200 MB object (`PUT …/info/lfs/objects/{oid}/{size}`: streamed, hashed, flushed
 *    to the disk, placed) against `curl -T` to the bare server (which writes the file and nothing
 *    else), each after a `sync`, who goes first alternating;
 *  - download of it (`GET …/info/lfs/objects/{oid}`) against `curl` from the bare server;
 *  - the server's resident memory sampled every 10 ms while it moves the object (it must stay flat:
 *    the object never sits in memory);
 *  - a batch request naming 1,000 objects, median of 5.
 * Targets: ≥ 0.8× the bare server's throughput both ways (the median of 5 rounds' ratios), the RSS growth below
 * 64 MB, the batch under 100 ms.
 */
import * as ChildProcess from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import { exited } from "../ChildServer.ts"
import { freePort } from "../FreePort.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { atLeast, below, type BenchSettings, type DatabaseReport, perDatabase, type Scenario } from "../Scenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const MiB = 1024 * 1024
const OBJECT_SIZE = 200 * MiB
const ROUNDS = 5
const BATCH_OBJECTS = 1_000
const LFS = "application/vnd.git-lfs+json"

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const rss = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? 0 : Number(match[1]) * 1024
}

/** curl's own timing of one transfer, in seconds; fails on an HTTP error. */
const curl = (args: ReadonlyArray<string>) =>
  new Promise<number>((resolve, reject) => {
    ChildProcess.execFile("curl", ["-sS", "--fail", "-o", "/dev/null", "-w", "%{time_total}", ...args], (error, stdout, stderr) =>
      error === null ? resolve(Number(stdout)) : reject(new Error(`curl ${args.join(" ")}: ${stderr}`)))
  })

const writeObject = (path: string) => {
  const hash = createHash("sha256")
  const out = Fs.openSync(path, "w")
  for (let written = 0; written < OBJECT_SIZE; written += MiB) {
    const chunk = randomBytes(MiB)
    hash.update(chunk)
    Fs.writeSync(out, chunk)
  }
  Fs.closeSync(out)
  return hash.digest("hex")
}

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const nodeFlags = settings.cpuProfileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", Path.join(settings.cpuProfileDir, `lfs-${kind}`)]
  const server = await startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log"), env: { KILN_ACCESS_LOG: "false" }, nodeFlags })
  const bareDir = Fs.mkdtempSync(Path.join(database.dataDir, "bare-"))
  const barePort = await freePort()
  const bare = ChildProcess.spawn(process.execPath, [new URL("../bareStaticServer.ts", import.meta.url).pathname, bareDir, String(barePort)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  try {
    await new Promise<void>((resolve) => bare.stdout?.once("data", () => resolve()))
    const token = await createToken(server.url, admin, "lfs")
    const authorization = `Authorization: token ${token}`
    for (let round = 0; round < ROUNDS; round++) {
      const created = await fetch(`${server.url}/api/v1/user/repos`, {
        method: "POST",
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `media-${round}` })
      })
      if (created.status !== 201) throw new Error(`creating a repository answered ${created.status}`)
    }
    const objectPath = Path.join(database.dataDir, "object.bin")
    const objects = Array.from({ length: ROUNDS }, (_, round) => {
      const path = `${objectPath}.${round}`
      return { path, oid: writeObject(path) }
    })
    log(`[${kind}] ${ROUNDS} objects of ${OBJECT_SIZE / MiB} MB written`)

    const idle = rss(server.pid)
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(server.pid))
    }, 10)
    const bareUp: Array<number> = []
    const bareDown: Array<number> = []
    const kilnUp: Array<number> = []
    const kilnDown: Array<number> = []
    try {
      // Alternated, so that a busy moment of the machine falls on both, and each upload starts with
      // no dirty pages: the one before it would otherwise be written back to the disk during it.
      // Kiln flushes what it stored to the disk before it answers; the bare server does not.
      const clean = <A>(transfer: () => Promise<A>) => {
        ChildProcess.execFileSync("sync")
        return transfer()
      }
      for (let round = 0; round < ROUNDS; round++) {
        const object = objects[round] ?? objects[0]
        if (object === undefined) break
        const bareUpload = () => clean(() => curl(["-T", object.path, `http://127.0.0.1:${barePort}/object-${round}`]))
        // A new object each round (a new repository would link an existing one without its bytes).
        const kilnUpload = () =>
          clean(() => curl(["-T", object.path, "-H", authorization, `${server.url}/${admin.username}/media-${round}.git/info/lfs/objects/${object.oid}/${OBJECT_SIZE}`]))
        // Who goes first changes each round.
        if (round % 2 === 0) {
          bareUp.push(await bareUpload())
          kilnUp.push(await kilnUpload())
        } else {
          kilnUp.push(await kilnUpload())
          bareUp.push(await bareUpload())
        }
        bareDown.push(await curl([`http://127.0.0.1:${barePort}/object-${round}`]))
        kilnDown.push(await curl(["-H", authorization, `${server.url}/${admin.username}/media-${round}.git/info/lfs/objects/${object.oid}`]))
      }
    } finally {
      clearInterval(sampler)
    }
    const mbps = (seconds: number) => OBJECT_SIZE / MiB / seconds
    // Each round's Kiln transfer against the bare server's beside it: the disk of a shared machine
    // has slow spells of several seconds (both fell to ~250 MB/s together), which a round's pair
    // shares and medians taken apart would not.
    const paired = (kiln: ReadonlyArray<number>, bare: ReadonlyArray<number>) =>
      median(kiln.map((seconds, round) => (bare[round] ?? seconds) / seconds))
    const upRatio = paired(kilnUp, bareUp)
    const downRatio = paired(kilnDown, bareDown)
    notes.push(`upload MB/s: Kiln ${kilnUp.map((s) => mbps(s).toFixed(0)).join(", ")}; bare ${bareUp.map((s) => mbps(s).toFixed(0)).join(", ")}`)
    notes.push(`download MB/s: Kiln ${kilnDown.map((s) => mbps(s).toFixed(0)).join(", ")}; bare ${bareDown.map((s) => mbps(s).toFixed(0)).join(", ")}`)
    notes.push(`server RSS ${(idle / MiB).toFixed(0)} MB before, ${(peak / MiB).toFixed(0)} MB at the peak`)

    const batch = {
      operation: "upload",
      transfers: ["basic"],
      objects: Array.from({ length: BATCH_OBJECTS }, () => ({ oid: randomBytes(32).toString("hex"), size: 1024 }))
    }
    const batchTimes: Array<number> = []
    for (let round = 0; round < 6; round++) {
      const started = performance.now()
      const answer = await fetch(`${server.url}/${admin.username}/media-0.git/info/lfs/objects/batch`, {
        method: "POST",
        headers: { authorization: `token ${token}`, accept: LFS, "content-type": LFS },
        body: JSON.stringify(batch)
      })
      await answer.arrayBuffer()
      if (answer.status !== 200) throw new Error(`the batch answered ${answer.status}`)
      // The first warms the route up.
      if (round > 0) batchTimes.push(performance.now() - started)
    }
    notes.push(`batch of ${BATCH_OBJECTS} objects: ${batchTimes.map((t) => t.toFixed(0)).join(", ")} ms`)
    for (const note of notes) log(`[${kind}] ${note}`)
    return {
      database: kind,
      loads: [],
      comparisons: [],
      targets: [
        atLeast("Kiln upload throughput ÷ bare server's (median of the rounds' ratios)", upRatio, 0.8, true),
        atLeast("Kiln download throughput ÷ bare server's (median of the rounds' ratios)", downRatio, 0.8, true),
        below("server RSS growth while moving 200 MB objects, MB", (peak - idle) / MiB, 64, true),
        below(`batch of ${BATCH_OBJECTS} objects, ms (median)`, median(batchTimes), 100, true)
      ],
      notes
    }
  } finally {
    bare.kill("SIGTERM")
    await exited(bare)
    await server.stop()
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "lfs",
  "Git LFS upload and download of 200 MB objects vs a bare Node static file server (curl both), server memory, a batch of 1,000 objects",
  runOn
)
