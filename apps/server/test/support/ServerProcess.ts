/**
 * The server as an operator runs it: the bundle (build/ServerBundle.ts, built by the project's
 * globalSetup) in a child process, with its output collected.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { serverEntry } from "../../build/ServerBundle.ts"

const FIRST_PORT = 12_000
const SLICE_SIZE = 600
/** Slices that fit below 32768. */
const WORKER_SLICES = Math.floor((32_768 - FIRST_PORT) / SLICE_SIZE)
const handedOut = new Set<number>()

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/**
 * A port nobody listens on, for a server process to bind. Ports come from below the kernel's
 * ephemeral range (32768 and up on Linux), from which the suite's outgoing connections (git, ssh,
 * PostgreSQL clients) take their local ports: a port found free by binding port 0 could be taken by
 * such a connection before the server binds it. A server that cannot bind exits; in CI a test once
 * waited 120 s for an SSH server that never listened, which a taken port produces exactly. Each
 * vitest worker draws from its own slice, so test files running side by side never hand out the same
 * port, and a file never gets one twice.
 */
export const freePort = async (): Promise<number> => {
  const worker = Number(process.env["VITEST_POOL_ID"] ?? "1")
  const first = FIRST_PORT + ((Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % WORKER_SLICES) * SLICE_SIZE
  for (let attempt = 0; attempt < SLICE_SIZE; attempt++) {
    const port = first + Math.floor(Math.random() * SLICE_SIZE)
    if (handedOut.has(port)) continue
    handedOut.add(port)
    if (await bindable(port)) return port
  }
  throw new Error(`no free port in ${first}-${first + SLICE_SIZE - 1}`)
}

export interface ServerProcess {
  readonly child: ChildProcess
  readonly port: number
  /** Standard output and error so far. */
  output: string
  readonly exited: Promise<number | null>
}

/** Starts the server on `dataDir` and `port` with the admin `root` / `root-password` and no signing key. */
export const spawnServer = (options: {
  readonly dataDir: string
  readonly port: number
  readonly env?: Readonly<Record<string, string>>
  readonly nodeFlags?: ReadonlyArray<string>
}): ServerProcess => {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), serverEntry], {
    env: {
      ...process.env,
      KILN_DATA_DIR: options.dataDir,
      KILN_HTTP_PORT: String(options.port),
      KILN_HTTP_HOST: "127.0.0.1",
      KILN_ADMIN_USERNAME: "root",
      KILN_ADMIN_PASSWORD: "root-password",
      KILN_ADMIN_EMAIL: "root@example.com",
      KILN_SIGNING_KEY: "none",
      // Tests that want the built-in SSH server pick a free port for it.
      KILN_SSH_PORT: "0",
      ...options.env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const running: ServerProcess = {
    child,
    port: options.port,
    output: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code)))
  }
  child.stdout?.on("data", (chunk) => (running.output += String(chunk)))
  child.stderr?.on("data", (chunk) => (running.output += String(chunk)))
  return running
}

/** Resolves once `line` is in the server's output; fails when it exits or does not print it within 30 s. */
const printed = async (running: ServerProcess, line: string) => {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (running.output.includes(line)) return
    if (running.child.exitCode !== null) throw new Error(`server exited: ${running.output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`server did not print "${line}": ${running.output}`)
}

/** Resolves once the server listens; fails when it exits or does not start within 30 s. */
export const listening = (running: ServerProcess) => printed(running, "Listening on")

/** Resolves once the built-in SSH server listens too; fails as `listening` does. */
export const sshListening = async (running: ServerProcess) => {
  await listening(running)
  await printed(running, "SSH listening")
}
