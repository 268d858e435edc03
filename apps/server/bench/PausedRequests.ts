/**
 * A server's CPU per request when requests come one at a time with pauses between them, against
 * back to back. A git operation's requests come that way: each waits for the client's git process
 * to run, and the server has idled for milliseconds when it arrives. An idle process runs its next
 * request from cold caches, so each costs several times what the same request costs in a stream
 * (here: Kiln's `/version` ~1 ms against ~0.25 ms, a bare `node:http` server ~0.27 against ~0.11).
 * The git scenario reports it beside its per-operation CPU, which that cost is part of.
 */
import * as Http from "node:http"
import type { ChildServer } from "./ChildServer.ts"
import { sampleProcess, totalSeconds } from "./ThreadCpu.ts"

export interface PausedRequestsCpu {
  /** CPU µs per request, requests back to back on one connection (ten times as many). */
  readonly backToBack: number
  /** CPU µs per request with `pauseMs` between one answer and the next request. */
  readonly paused: number
  readonly pauseMs: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const serverCpuSeconds = (pid: number): number => {
  const cpu = sampleProcess(pid)
  if (cpu === undefined) throw new Error(`server ${pid} has ended`)
  return totalSeconds(cpu)
}

/** Measures `path` on `server`, one keep-alive connection, after `warmup` requests. */
export const measurePausedRequests = async (
  server: ChildServer,
  path: string,
  options: { readonly requests?: number; readonly pauseMs?: number; readonly warmup?: number } = {}
): Promise<PausedRequestsCpu> => {
  const requests = options.requests ?? 300
  const pauseMs = options.pauseMs ?? 10
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const request = Http.request(`${server.url}${path}`, { agent }, (response) => {
        response.resume()
        response.once("end", () => response.statusCode === 200 ? resolve() : reject(new Error(`GET ${path} answered ${response.statusCode}`)))
      })
      request.once("error", reject)
      request.end()
    })
  // /proc counts CPU in ticks of 10 ms: enough requests that a tick is a few percent of the total.
  const cpuPerRequest = async (pause: number, count: number) => {
    const before = serverCpuSeconds(server.pid)
    for (let i = 0; i < count; i++) {
      await get()
      if (pause > 0) await sleep(pause)
    }
    return ((serverCpuSeconds(server.pid) - before) * 1e6) / count
  }
  try {
    for (let i = 0; i < (options.warmup ?? 2_000); i++) await get()
    const backToBack = await cpuPerRequest(0, requests * 10)
    const paused = await cpuPerRequest(pauseMs, requests)
    return { backToBack, paused, pauseMs }
  } finally {
    agent.destroy()
  }
}

export const describePausedRequests = (cpu: PausedRequestsCpu): string =>
  `${cpu.paused.toFixed(0)} µs CPU per request after a ${cpu.pauseMs} ms pause, ${cpu.backToBack.toFixed(0)} back to back (×${(cpu.paused / cpu.backToBack).toFixed(1)})`
