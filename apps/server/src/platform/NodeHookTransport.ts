/**
 * HookTransport on node:http(s). The target's host name is resolved once, its addresses are checked
 * against the allowed-hosts list, and the connection goes to the first allowed one through a
 * `lookup` that returns just that address, so a second resolution cannot swap it (DNS rebinding).
 * Redirects are not followed (node never does); the timeout covers the whole exchange, as Go's
 * client timeout does; at most 64 KiB of the answer is read.
 */
import { lookup as dnsLookup } from "node:dns/promises"
import { request as httpRequest, type IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { Effect, Layer } from "effect"
import { allowsConnection, type AllowedHosts, refusalMessage } from "@kiln/domain/webhook/AllowedHosts"
import { HookTransport, type OutgoingRequest, RESPONSE_BODY_LIMIT, type TransportResult } from "@kiln/domain/webhook/HookTransport"

const failed = (message: string, reason: "timeout" | "network" = "network"): TransportResult => ({ _tag: "Failed", message, reason })

/** Response headers as Forgejo records them: each name once, repeated values joined with ",". */
const headersOf = (response: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  const raw = response.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? ""
    const value = raw[i + 1] ?? ""
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`
  }
  return headers
}

const errorText = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * A header value as the bytes Go would send: its UTF-8, handed to node as a latin-1 string (node
 * writes each code unit as one byte and refuses anything above U+00FF).
 */
const asHeaderBytes = (value: string): string => Buffer.from(value, "utf8").toString("latin1")

/** The address to connect to, or why there is none. */
const resolveAllowed = async (host: string, allowed: AllowedHosts): Promise<{ address: string; family: number } | TransportResult> => {
  const literal = isIP(host)
  const addresses = literal !== 0
    ? [{ address: host, family: literal }]
    : await dnsLookup(host, { all: true, verbatim: true }).catch((error: unknown) => errorText(error))
  if (typeof addresses === "string") return failed(`Delivery: ${addresses}`)
  const chosen = addresses.find((candidate) => allowsConnection(allowed, host, candidate.address))
  if (chosen !== undefined) return chosen
  return { _tag: "Refused", message: `Delivery: ${refusalMessage(host, addresses[0]?.address ?? "")}` }
}

const exchange = (request: OutgoingRequest, timeout: number, allowed: AllowedHosts): Promise<TransportResult> =>
  new Promise((resolve) => {
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return resolve(failed(`Delivery: invalid URL ${request.url}`))
    }
    const host = url.hostname.replace(/^\[|\]$/g, "")
    let settled = false
    const settle = (result: TransportResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    let abort = () => {}
    const timer = setTimeout(() => {
      abort()
      settle(failed(`Delivery: no answer within ${timeout} ms`, "timeout"))
    }, timeout)

    const connect = (target: { address: string; family: number } | TransportResult) => {
      if (settled) return
      if ("_tag" in target) return settle(target)
      const pinned: LookupFunction = (_hostname, options, callback) => {
        if (typeof options === "object" && options.all === true) {
          callback(null, [{ address: target.address, family: target.family }])
        } else {
          callback(null, target.address, target.family)
        }
      }
      const send = url.protocol === "https:" ? httpsRequest : httpRequest
      const body = Buffer.from(request.body, "utf8")
      // Node throws here (synchronously) for a header value it cannot send: the caller's catch
      // makes that a failed attempt, as Go's client returns an error.
      const outgoing = send(url, {
        method: request.method,
        lookup: pinned,
        // An object (in order), so node adds Host as Go does.
        headers: { ...Object.fromEntries(request.headers.map(([name, value]) => [name, asHeaderBytes(value)])), "Content-Length": String(body.length) },
        // One connection per attempt: a kept-alive socket would outlive the address check.
        agent: false
      }, (response) => {
        const chunks: Array<Buffer> = []
        let size = 0
        const finish = () =>
          settle({
            _tag: "Response",
            status: response.statusCode ?? 0,
            headers: headersOf(response),
            body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8")
          })
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          size += chunk.length
          if (size >= RESPONSE_BODY_LIMIT) {
            finish()
            response.destroy()
          }
        })
        response.on("end", finish)
        response.on("error", (error) => settle(failed(`Delivery: ${errorText(error)}`)))
      })
      abort = () => outgoing.destroy()
      outgoing.on("error", (error) => settle(failed(`Delivery: ${errorText(error)}`)))
      outgoing.end(body)
    }

    // Whatever goes wrong building or sending the request is this attempt's failure: nothing may
    // escape as an unhandled rejection, which would end the process.
    resolveAllowed(host, allowed).then(connect).catch((error: unknown) => settle(failed(`Delivery: ${errorText(error)}`)))
  })

export const layer: Layer.Layer<HookTransport> = Layer.succeed(
  HookTransport,
  HookTransport.of({
    send: (request, options) => Effect.promise(() => exchange(request, options.timeout, options.allowed))
  })
)
