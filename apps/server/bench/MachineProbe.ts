/**
 * How fast the machine runs a fixed piece of work, window by window of a load: a probe process
 * (machineProbeWorker.ts) repeats the same JSON work every few milliseconds and reports the CPU
 * time it took. On a shared machine the CPU one request costs moves with what else runs on the same
 * cores and caches; when the probe's work slows by as much as a server's requests do between two
 * windows, the machine changed, not the server. It does not see every such swing (README).
 *
 * The probe takes ~2 % of one core, the same in every window.
 */
import * as ChildProcess from "node:child_process"

export type ProbeRequest = { readonly type: "mark" }
/** CPU µs per probe task since the previous mark; undefined when no task ran in between. */
export type ProbeReply = { readonly type: "ready" } | { readonly type: "marked"; readonly microseconds: number | undefined }

const isProbeReply = (message: unknown): message is ProbeReply =>
  typeof message === "object" && message !== null && "type" in message && (message.type === "ready" || message.type === "marked")

export interface MachineProbe {
  /** The probe's mean CPU µs per task since the previous mark (the first mark starts the count). */
  readonly mark: () => Promise<number | undefined>
  readonly stop: () => void
}

export const startMachineProbe = (): Promise<MachineProbe> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.fork(new URL("./machineProbeWorker.ts", import.meta.url), [], {
      execPath: process.execPath,
      execArgv: [],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const waiting: Array<(microseconds: number | undefined) => void> = []
    child.on("message", (message) => {
      if (!isProbeReply(message)) return
      if (message.type === "ready") {
        resolve({
          mark: () =>
            new Promise((answer) => {
              if (!child.connected) return answer(undefined)
              waiting.push(answer)
              child.send({ type: "mark" } satisfies ProbeRequest)
            }),
          stop: () => {
            if (child.connected) child.disconnect()
            child.kill()
          }
        })
      } else waiting.shift()?.(message.microseconds)
    })
    child.once("error", reject)
    child.once("exit", () => {
      for (const answer of waiting.splice(0)) answer(undefined)
    })
  })
