/**
 * A server running in a child process of its own, so that it never shares an event loop with the
 * load generator or the benchmark driver. The child announces itself with a `listening` message.
 */
import * as ChildProcess from "node:child_process"

export interface ChildServer {
  readonly url: string
  readonly pid: number
  /** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/** What a server child sends once it accepts connections. */
export interface ListeningMessage {
  readonly type: "listening"
  readonly port: number
}

export const isListeningMessage = (message: unknown): message is ListeningMessage =>
  typeof message === "object" && message !== null && "type" in message && message.type === "listening" &&
  "port" in message && typeof message.port === "number"

/** Sends `listening` to the parent, and exits when the parent goes away without stopping us. */
export const announceListening = (port: number): void => {
  process.send?.({ type: "listening", port } satisfies ListeningMessage)
  process.once("disconnect", () => process.exit(0))
}

/** Resolves when `child` exits; at once if it already has. */
export const exited = (child: ChildProcess.ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

export const stopProcess = async (child: ChildProcess.ChildProcess, graceMs = 15_000): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
  await exited(child)
  clearTimeout(timer)
}

/**
 * Forks `entry` (a TypeScript file run by this same Node) with `config` as its only argument, and
 * waits for its `listening` message.
 */
export const forkServer = (
  entry: URL,
  config: unknown,
  options: { readonly startTimeoutMs?: number; readonly nodeFlags?: ReadonlyArray<string> } = {}
): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.fork(entry, [JSON.stringify(config)], {
      execPath: process.execPath,
      // The driver's own flags (e.g. --cpu-prof) are not meant for the servers it starts.
      execArgv: [...(options.nodeFlags ?? [])],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const timeout = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${entry.pathname} did not start within ${options.startTimeoutMs ?? 120_000} ms`))
    }, options.startTimeoutMs ?? 120_000)
    child.once("exit", (code, signal) => {
      clearTimeout(timeout)
      reject(new Error(`${entry.pathname} exited before listening (code ${code}, signal ${signal})`))
    })
    child.on("message", (message) => {
      if (!isListeningMessage(message)) return
      clearTimeout(timeout)
      resolve({
        url: `http://127.0.0.1:${message.port}`,
        pid: child.pid ?? -1,
        stop: (graceMs) => stopProcess(child, graceMs)
      })
    })
  })
