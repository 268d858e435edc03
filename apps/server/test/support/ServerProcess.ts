/**
 * The server as an operator runs it: the bundle (build/ServerBundle.ts, built by the project's
 * globalSetup) in a child process, with its output collected.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { serverEntry } from "../../build/ServerBundle.ts"

/** A port nobody listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

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

/** Resolves once the server listens; fails when it exits or does not start within 30 s. */
export const listening = async (running: ServerProcess) => {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (running.output.includes("Listening on")) return
    if (running.child.exitCode !== null) throw new Error(`server exited: ${running.output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`server did not start: ${running.output}`)
}
