/**
 * Issue 6, item 6: a generated repository of about 30 MB (3,000 files of text that compresses like
 * source code), pushed into Kiln's bare repository. Measured three times each:
 *  - `git archive --format=tar.gz` of the commit (the baseline, piped into a byte counter);
 *  - Kiln `GET /archive/<commit>.tar.gz` of a fresh fork, so the archive is made, not served from
 *    the cache (the warm, cached answer is reported as well);
 *  - `POST /repos/{o}/{r}/forks`.
 * Targets: Kiln's cold archive ≤ 2× git's time (median), the server's resident memory < 150 MB at
 * its peak while archives are made and sent (sampled from /proc every 10 ms; on the embedded
 * database only its growth is judged, PGlite living in the process), fork < 1 s.
 * The measured requests sign in with a token: with Basic auth each request would add the 32 MiB of
 * its password's scrypt derivation to the peak, whatever it asks for.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { below, type BenchSettings, type DatabaseReport, type Scenario, perDatabase } from "../Scenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const ROUNDS = 3
const MiB = 1024 * 1024

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  ChildProcess.execFileSync(command, [...args], {
    cwd,
    env: { ...process.env, GIT_AUTHOR_NAME: "Bench", GIT_AUTHOR_EMAIL: "bench@bench.invalid", GIT_COMMITTER_NAME: "Bench", GIT_COMMITTER_EMAIL: "bench@bench.invalid" },
    maxBuffer: 64 * MiB
  }).toString().trim()

/** 3,000 files of ~10 KB: lines drawn from a fixed vocabulary by a seeded generator. */
const generateTree = (dir: string) => {
  let seed = 42
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return seed
  }
  const words = Array.from({ length: 5_000 }, (_, i) => `w${(i * 7_919).toString(36)}`)
  for (let file = 0; file < 3_000; file++) {
    const folder = Path.join(dir, `pkg${file % 30}`, `mod${file % 7}`)
    Fs.mkdirSync(folder, { recursive: true })
    const lines: Array<string> = []
    for (let line = 0; line < 200; line++) {
      lines.push(Array.from({ length: 8 }, () => words[next() % words.length]).join(" "))
    }
    Fs.writeFileSync(Path.join(folder, `file${file}.txt`), `${lines.join("\n")}\n`)
  }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** Resident set size of `pid` in bytes. */
const rss = (pid: number): number => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  return match === null ? 0 : Number(match[1]) * 1024
}

const timed = async <A>(work: () => Promise<A>): Promise<{ readonly ms: number; readonly value: A }> => {
  const started = performance.now()
  const value = await work()
  return { ms: performance.now() - started, value }
}

/** Reads a whole answer, counting bytes without keeping them. */
const drain = async (url: string, token: string): Promise<{ readonly status: number; readonly bytes: number }> => {
  const response = await fetch(url, { headers: { authorization: `token ${token}` } })
  let bytes = 0
  if (response.body !== null) for await (const chunk of response.body) bytes += chunk.byteLength
  return { status: response.status, bytes }
}

const gitArchive = (gitdir: string, commit: string) =>
  new Promise<number>((resolve, reject) => {
    // The prefix Kiln gives the forks' archives (`fork-0/` …), so the two are the same size.
    const child = ChildProcess.spawn("git", ["--git-dir", gitdir, "archive", "--format=tar.gz", "--prefix=fork-0/", commit])
    let bytes = 0
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.byteLength
    })
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? resolve(bytes) : reject(new Error(`git archive exited ${code}`))))
  })

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const server = await startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log") })
  try {
    const token = await createToken(server.url, admin, "archive")
    const authorization = `token ${token}`
    const created = await fetch(`${server.url}/api/v1/user/repos`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench" })
    })
    if (created.status !== 201) throw new Error(`creating the repository answered ${created.status}`)
    const work = Fs.mkdtempSync(Path.join(database.dataDir, "work-"))
    generateTree(work)
    run("git", ["init", "-q", "-b", "main"], work)
    run("git", ["add", "-A"], work)
    run("git", ["commit", "-q", "-m", "generated"], work)
    const commit = run("git", ["rev-parse", "HEAD"], work)
    const bare = Path.join(database.dataDir, "repositories", admin.username, "bench.git")
    run("git", ["push", "-q", bare, "main"], work)
    run("git", ["--git-dir", bare, "gc", "-q"], work)
    const size = Number(run("du", ["-sb", bare], work).split("\t")[0])
    notes.push(`repository: ${(size / MiB).toFixed(1)} MB packed, work tree ${(Number(run("du", ["-sb", "--exclude=.git", work], work).split("\t")[0]) / MiB).toFixed(1)} MB`)
    log(`[${kind}] ${notes[0]}`)

    const gitTimes: Array<number> = []
    let gitBytes = 0
    for (let round = 0; round < ROUNDS; round++) {
      const { ms, value } = await timed(() => gitArchive(bare, commit))
      gitTimes.push(ms)
      gitBytes = value
    }

    const idle = rss(server.pid)
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(server.pid))
    }, 10)
    const forkTimes: Array<number> = []
    const coldTimes: Array<number> = []
    const warmTimes: Array<number> = []
    let kilnBytes = 0
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const fork = await timed(() =>
          // A user forks a base once: each round forks the previous round's fork (same commit, new name).
          fetch(`${server.url}/api/v1/repos/${admin.username}/${round === 0 ? "bench" : `fork-${round - 1}`}/forks`, {
            method: "POST",
            headers: { authorization, "content-type": "application/json" },
            body: JSON.stringify({ name: `fork-${round}` })
          }).then(async (response) => {
            await response.arrayBuffer()
            return response.status
          }))
        if (fork.value !== 202) throw new Error(`fork answered ${fork.value}`)
        forkTimes.push(fork.ms)
        const url = `${server.url}/api/v1/repos/${admin.username}/fork-${round}/archive/${commit}.tar.gz`
        const cold = await timed(() => drain(url, token))
        if (cold.value.status !== 200) throw new Error(`archive answered ${cold.value.status}`)
        coldTimes.push(cold.ms)
        kilnBytes = cold.value.bytes
        warmTimes.push((await timed(() => drain(url, token))).ms)
      }
    } finally {
      clearInterval(sampler)
    }
    const gitMs = median(gitTimes)
    const coldMs = median(coldTimes)
    notes.push(`git archive: ${gitTimes.map((t) => t.toFixed(0)).join(", ")} ms (${(gitBytes / MiB).toFixed(1)} MB)`)
    notes.push(`Kiln cold archive: ${coldTimes.map((t) => t.toFixed(0)).join(", ")} ms (${(kilnBytes / MiB).toFixed(1)} MB); cached: ${warmTimes.map((t) => t.toFixed(0)).join(", ")} ms`)
    notes.push(`fork: ${forkTimes.map((t) => t.toFixed(0)).join(", ")} ms; server RSS ${(idle / MiB).toFixed(0)} MB before, ${(peak / MiB).toFixed(0)} MB at the peak`)
    for (const note of notes.slice(1)) log(`[${kind}] ${note}`)
    return {
      database: kind,
      loads: [],
      comparisons: [],
      targets: [
        below("Kiln cold tar.gz time ÷ git archive time (median)", coldMs / gitMs, 2.0001, true),
        // The embedded database (PGlite, in the server process) alone takes hundreds of MB, so the
        // absolute peak is judged on Postgres and the growth on both.
        below("server peak RSS during archives and forks, MB", peak / MiB, 150, kind === "postgres"),
        below("server RSS growth during archives and forks, MB", (peak - idle) / MiB, 150, true),
        below("fork, ms (median)", median(forkTimes), 1_000, true)
      ],
      notes
    }
  } finally {
    await server.stop()
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "archive",
  "tar.gz archive of a 30 MB repository vs git archive, server memory during it, and a fork of it",
  runOn
)
