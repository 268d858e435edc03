/**
 * The real Kiln server as shipped (`node apps/server/dist/main.js`, bundled by bench/main.ts) in a
 * child process, configured through its environment like an operator would, on a database
 * prepared by BenchDatabase.ts.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { serverEntry } from "../build/ServerBundle.ts"
import type { DatabaseLocation } from "./BenchDatabase.ts"
import { type ChildServer, exited, stopProcess } from "./ChildServer.ts"
import { freePort } from "./FreePort.ts"

export interface Admin {
  readonly username: string
  readonly password: string
  readonly email: string
}

export interface KilnServerOptions {
  readonly database: DatabaseLocation
  readonly admin: Admin
  /** Receives the server's stdout and stderr (one access-log line per request). */
  readonly logFile: string
  /** Extra Node flags, e.g. `--cpu-prof`. */
  readonly nodeFlags?: ReadonlyArray<string>
  readonly startTimeoutMs?: number
  /** More settings (`KILN_*`, e.g. `KILN_WEBHOOK_*`) over the bench's own. */
  readonly env?: Readonly<Record<string, string>>
}

const serverDirectory = new URL("../", import.meta.url)

const answers = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The end of the server's log, for start-up failures (the data dir is removed afterwards). */
const logTail = (file: string): string => {
  try {
    return Fs.readFileSync(file, "utf8").slice(-2_000)
  } catch {
    return ""
  }
}

/** Starts Kiln and resolves once `GET /api/v1/version` answers. */
export const startKiln = async (options: KilnServerOptions): Promise<ChildServer> => {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KILN_DATA_DIR: options.database.dataDir,
    KILN_HTTP_PORT: String(port),
    KILN_HTTP_HOST: "127.0.0.1",
    KILN_ADMIN_USERNAME: options.admin.username,
    KILN_ADMIN_PASSWORD: options.admin.password,
    KILN_ADMIN_EMAIL: options.admin.email,
    // The loads come from one address: an anonymous budget would refuse them after an hour's worth.
    KILN_RATE_LIMIT_ANONYMOUS: "0",
    // No SSH unless a scenario asks for it (the SSH scenario gives a free port): on the default port,
    // a server left by an aborted run made every later start fail.
    KILN_SSH_PORT: "0",
    ...options.env
  }
  if (options.database.databaseUrl === undefined) delete env["DATABASE_URL"]
  else env["DATABASE_URL"] = options.database.databaseUrl

  const log = Fs.openSync(options.logFile, "a")
  const child = ChildProcess.spawn(process.execPath, [...(options.nodeFlags ?? []), serverEntry], {
    cwd: serverDirectory,
    env,
    stdio: ["ignore", log, log]
  })
  Fs.closeSync(log)

  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000)
  let gone = false
  void exited(child).then(() => {
    gone = true
  })
  while (!(await answers(`${url}/api/v1/version`))) {
    if (gone) throw new Error(`Kiln exited during start-up (code ${child.exitCode}):\n${logTail(options.logFile)}`)
    if (Date.now() > deadline) {
      await stopProcess(child, 1_000)
      throw new Error(`Kiln did not answer within ${options.startTimeoutMs ?? 120_000} ms:\n${logTail(options.logFile)}`)
    }
    await sleep(200)
  }
  return { url, pid: child.pid ?? -1, stop: (graceMs) => stopProcess(child, graceMs) }
}

/** An access token with every scope for `admin`, created through the API as a client would. */
export const createToken = async (url: string, admin: Admin, name: string): Promise<string> => {
  const response = await fetch(`${url}/api/v1/users/${encodeURIComponent(admin.username)}/tokens`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString("base64")}`,
      "content-type": "application/json"
    },
    body: JSON.stringify({ name, scopes: ["all"] })
  })
  const body: unknown = await response.json()
  if (response.status !== 201 || typeof body !== "object" || body === null || !("sha1" in body) || typeof body.sha1 !== "string") {
    throw new Error(`creating a token answered ${response.status}: ${JSON.stringify(body)}`)
  }
  return body.sha1
}

/** The body size of one answer, for baselines that must send as many bytes. */
export const bodySize = async (url: string, headers: Readonly<Record<string, string>> = {}): Promise<number> => {
  const response = await fetch(url, { headers })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return (await response.arrayBuffer()).byteLength
}
