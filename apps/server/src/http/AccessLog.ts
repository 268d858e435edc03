/**
 * One JSON line per request (method, path, status, duration, client address) on standard output.
 * The address is the client's as a trusted proxy forwarded it (HttpApp applies X-Forwarded-For
 * outside this log), the connection's peer otherwise.
 * Credentials never reach it: query values that carry them (Forgejo's `token`, `access_token`,
 * `sudo`, and any `authorization`) are redacted, and no header is logged.
 * Lines are built by hand and written in batches: going through the logger's formatter and a
 * synchronous write per request cost a seventh of the server's time under load. A batch waits
 * FLUSH_AFTER_MS rather than the next turn of the event loop: under load a turn answers one or two
 * requests, so that was still about a write per request, and with the timestamp formatted once per
 * millisecond the log went from ~8 to ~4 µs of a `/version` request's ~55 µs of CPU.
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { withRequest } from "./ServedRequest.ts"

/** How long a line may wait for others before the batch is written. */
const FLUSH_AFTER_MS = 20

let pending: Array<string> = []

const flush = () => {
  if (pending.length === 0) return
  const lines = pending
  pending = []
  process.stdout.write(lines.join(""))
}

let flushesOnExit = false

const write = (line: string) => {
  if (pending.length === 0) {
    // Unreferenced, so a batch never holds a stopping server; the exit hook writes what is left.
    setTimeout(flush, FLUSH_AFTER_MS).unref()
    if (!flushesOnExit) {
      flushesOnExit = true
      process.once("exit", flush)
    }
  }
  pending.push(line)
}

let timestampMs = 0
let timestamp = ""

/** Now as ISO 8601, formatted once per millisecond: under load, many lines share one. */
const now = (): string => {
  const ms = Date.now()
  if (ms !== timestampMs) {
    timestampMs = ms
    timestamp = new Date(ms).toISOString()
  }
  return timestamp
}

/** Query names, lower-cased, whose values are credentials or act for another account. */
const credentialNames = new Set(["token", "access_token", "sudo", "authorization"])

const decodedName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replaceAll("+", " ")).toLowerCase()
  } catch {
    return raw.toLowerCase()
  }
}

/** The request target as logged: credential values in the query become `REDACTED`, the rest stays as sent. */
export const loggedPath = (url: string): string => {
  const question = url.indexOf("?")
  if (question < 0) return url
  const parts = url.slice(question + 1).split("&").map((part) => {
    const equals = part.indexOf("=")
    const name = equals < 0 ? part : part.slice(0, equals)
    return credentialNames.has(decodedName(name)) ? `${name}=REDACTED` : part
  })
  return `${url.slice(0, question)}?${parts.join("&")}`
}

/** The line of a request that started at `startedMs` (`performance.now()`) and ended now. */
export const logRequest = (method: string, url: string, status: number, startedMs: number, remote: string): void => {
  const durationMs = Math.round((performance.now() - startedMs) * 100) / 100
  write(
    `{"message":"request","level":"INFO","timestamp":"${now()}","method":${JSON.stringify(method)},"path":${
      JSON.stringify(loggedPath(url))
    },"status":${status},"durationMs":${durationMs},"remote":${JSON.stringify(remote)}}\n`
  )
}

export const accessLog = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) => {
    const started = performance.now()
    return Effect.onExit(app, (exit) => {
      const status = exit._tag === "Success" ? exit.value.status : 500
      const remote = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : ""
      logRequest(request.method, request.url, status, started, remote)
      return Effect.void
    })
  })
