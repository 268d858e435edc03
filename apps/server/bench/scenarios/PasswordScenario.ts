/**
 * Issue 27, item 2: password sign-in on one process, at production scrypt cost (N=2^17).
 * - A CI fan-out: 40 concurrent `git push` of 40 branches to one repository with `user:password`
 *   in the URL. git does not retry a 429, so every push must wait its turn. Target: 0 failures.
 * - Repeated `GET /api/v1/user` with Basic (the account's password) against the same with a token.
 *   A password verified once is remembered, so neither derives. Target: Basic ≥ 0.5× the token's req/s.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { ChildServer } from "../ChildServer.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, runLoad } from "../LoadGenerator.ts"
import { atLeast, below, type BenchSettings, compare, type DatabaseReport, perDatabase, validity } from "../Scenario.ts"
import { gitEnv } from "./GitScenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const PUSHER = { username: "ci-bot", password: "ci-bot-password-for-the-bench" }
const PUSHES = 40
const LOAD_CONNECTIONS = 8

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`

const git = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string>, cwd?: string) =>
  new Promise<{ readonly code: number; readonly stderr: string }>((resolve) => {
    const child = ChildProcess.spawn("git", [...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] })
    const err: Array<Buffer> = []
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", (error) => resolve({ code: -1, stderr: error.message }))
    child.on("close", (code) => resolve({ code: code ?? -1, stderr: Buffer.concat(err).toString("utf8") }))
  })

const mustGit = async (env: NodeJS.ProcessEnv, args: ReadonlyArray<string>, cwd?: string) => {
  const result = await git(env, args, cwd)
  if (result.code !== 0) throw new Error(`git ${args.slice(0, 2).join(" ")} exited ${result.code}: ${result.stderr.slice(-2_000)}`)
}

const call = async (url: string, method: string, authorization: string, body: unknown) => {
  const response = await fetch(url, {
    method,
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  if (response.status !== 201) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`)
}

/** The CI fan-out: the failures (git's last line each) and how long the whole took. */
const fanOut = async (server: ChildServer, work: string, env: NodeJS.ProcessEnv) => {
  const url = new URL(`${server.url}/${PUSHER.username}/fanout.git`)
  url.username = PUSHER.username
  url.password = PUSHER.password
  const copy = Path.join(work, "fanout")
  await mustGit(env, ["clone", "-q", url.toString(), copy])
  for (let n = 0; n < PUSHES; n++) {
    await mustGit(env, ["checkout", "-q", "-b", `ci-${n}`, "main"], copy)
    await mustGit(env, ["-c", "user.name=CI", "-c", "user.email=ci@bench.invalid", "commit", "-q", "--allow-empty", "-m", `job ${n}`], copy)
  }
  const started = performance.now()
  const pushes = await Promise.all(Array.from({ length: PUSHES }, (_, n) => git(env, ["push", "-q", url.toString(), `ci-${n}`], copy)))
  const seconds = (performance.now() - started) / 1000
  const failures = pushes.flatMap((push, n) => push.code === 0 ? [] : [`ci-${n}: ${push.stderr.trim().split("\n").at(-1) ?? ""}`])
  return { failures, seconds }
}

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-bench-passwords-"))
  let server: ChildServer | undefined
  try {
    const home = Path.join(work, "home")
    Fs.mkdirSync(home)
    const env = gitEnv(home)
    server = await startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log") })
    await call(`${server.url}/api/v1/admin/users`, "POST", basic(admin.username, admin.password), {
      username: PUSHER.username,
      email: "ci-bot@bench.invalid",
      password: PUSHER.password,
      must_change_password: false
    })
    await call(`${server.url}/api/v1/user/repos`, "POST", basic(PUSHER.username, PUSHER.password), { name: "fanout", auto_init: true })

    const pushes = await fanOut(server, work, env)
    log(`[${kind}] ${PUSHES} concurrent pushes with a password: ${pushes.failures.length} failed, ${pushes.seconds.toFixed(1)} s`)
    notes.push(`${PUSHES} concurrent pushes of ${PUSHES} branches, user:password in the URL: ` +
      `${PUSHES - pushes.failures.length} succeeded in ${pushes.seconds.toFixed(1)} s` +
      (pushes.failures.length === 0 ? "" : `; failed: ${pushes.failures.slice(0, 5).join(" | ")}`))

    const token = await createToken(server.url, { ...PUSHER, email: "ci-bot@bench.invalid" }, "bench")
    const load = (label: string, authorization: string): Promise<LoadResult> => {
      log(`[${kind}] ${label}: ${settings.warmupSeconds} s warm-up, ${settings.windows} × ${settings.seconds / settings.windows} s`)
      return runLoad({
        label,
        baseUrl: server?.url ?? "",
        paths: ["/api/v1/user"],
        headers: { authorization },
        connections: LOAD_CONNECTIONS,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: settings.seconds / settings.windows
      }, (window) =>
        log(`[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms` +
          (window.non2xx + window.errors > 0 ? `, ${window.non2xx} non-2xx, ${window.errors} errors` : "")))
    }
    const withToken = await load(`Kiln GET /user, token (${LOAD_CONNECTIONS} connections)`, `token ${token}`)
    const withPassword = await load(`Kiln GET /user, Basic password (${LOAD_CONNECTIONS} connections)`, basic(PUSHER.username, PUSHER.password))
    const ratio = withPassword.requestsPerSecond / withToken.requestsPerSecond
    log(`[${kind}] Basic password ÷ token: ×${ratio.toFixed(2)}`)
    return {
      database: kind,
      loads: [withToken, withPassword],
      comparisons: [compare(withPassword, withToken)],
      targets: [
        below(`${PUSHES} concurrent pushes with a password: failed pushes`, pushes.failures.length, 1, true),
        atLeast("Basic password req/s ÷ token req/s (GET /user)", ratio, 0.5, true),
        ...[withToken, withPassword].flatMap(validity)
      ],
      notes
    }
  } finally {
    await server?.stop()
    await database.dispose()
    Fs.rmSync(work, { recursive: true, force: true })
  }
}

export const scenario = perDatabase(
  "passwords",
  `${PUSHES} concurrent git pushes with user:password on one process; GET /user with a password against a token`,
  runOn
)
